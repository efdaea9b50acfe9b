package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/trustscreen/reviewer/cli"
)

// The desktop entry and AppStream metainfo the .deb and .rpm install
// (packaging/linux), named by the app id.
var (
	desktopEntrySrc = filepath.Join("packaging", "linux", cli.DefaultAppID+".desktop")
	metainfoSrc     = filepath.Join("packaging", "linux", cli.DefaultAppID+".metainfo.xml")
)

// linuxMeta is what FyneApp.toml says of the console on a Linux desktop.
type linuxMeta struct {
	cli.AppMeta
	LinuxAndBSD struct {
		GenericName string
		Categories  []string
		Comment     string
		Keywords    []string
	}
}

func readLinuxMeta(t *testing.T) linuxMeta {
	t.Helper()
	m, err := cli.ParseAppMeta(fyneAppToml)
	if err != nil {
		t.Fatal(err)
	}
	lm := linuxMeta{AppMeta: m}
	if _, err := toml.Decode(string(fyneAppToml), &lm); err != nil {
		t.Fatal(err)
	}
	if lm.LinuxAndBSD.Comment == "" || len(lm.LinuxAndBSD.Categories) == 0 || len(lm.LinuxAndBSD.Keywords) == 0 {
		t.Fatalf("FyneApp.toml's [LinuxAndBSD] lacks a Comment, Categories or Keywords: %+v", lm.LinuxAndBSD)
	}
	return lm
}

// metainfo is the part of an AppStream component the console's files must
// agree on.
type metainfo struct {
	ID         string   `xml:"id"`
	Name       string   `xml:"name"`
	Summary    string   `xml:"summary"`
	Launchable string   `xml:"launchable"`
	Categories []string `xml:"categories>category"`
	Keywords   []string `xml:"keywords>keyword"`
	Releases   []struct {
		Version string `xml:"version,attr"`
	} `xml:"releases>release"`
}

// checkDesktopFiles holds a desktop entry and a metainfo file to
// FyneApp.toml (name, app id, comment, categories, keywords, version) and,
// with validate, to desktop-file-validate and appstreamcli.
func checkDesktopFiles(t *testing.T, m linuxMeta, entryPath, metaPath string, validate bool) {
	t.Helper()
	id := m.Details.ID
	if filepath.Base(entryPath) != id+".desktop" || filepath.Base(metaPath) != id+".metainfo.xml" {
		t.Errorf("the desktop files are not named by the app id %s: %s, %s", id, entryPath, metaPath)
	}
	entry := readDesktopEntry(t, entryPath)
	want := map[string]string{"Type": "Application", "Name": m.Details.Name, "Exec": "reviewer", "Icon": id,
		"Comment": m.LinuxAndBSD.Comment, "GenericName": m.LinuxAndBSD.GenericName, "Terminal": "false",
		"Categories": strings.Join(m.LinuxAndBSD.Categories, ";") + ";",
		"Keywords":   strings.Join(m.LinuxAndBSD.Keywords, ";") + ";"}
	for k, v := range want {
		if entry[k] != v {
			t.Errorf("%s: %s=%q, want %q", entryPath, k, entry[k], v)
		}
	}
	b, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	var mi metainfo
	if err := xml.Unmarshal(b, &mi); err != nil {
		t.Fatalf("%s: %v", metaPath, err)
	}
	if mi.ID != id || mi.Name != m.Details.Name || mi.Summary != m.LinuxAndBSD.Comment || mi.Launchable != id+".desktop" ||
		strings.Join(mi.Categories, ";") != strings.Join(m.LinuxAndBSD.Categories, ";") ||
		strings.Join(mi.Keywords, ";") != strings.Join(m.LinuxAndBSD.Keywords, ";") {
		t.Errorf("%s does not say what FyneApp.toml says: %+v", metaPath, mi)
	}
	if len(mi.Releases) == 0 || mi.Releases[0].Version != m.Details.Version {
		t.Errorf("%s: the newest release is not FyneApp.toml's version %s: %+v", metaPath, m.Details.Version, mi.Releases)
	}
	if !validate {
		return
	}
	if out, err := exec.Command("desktop-file-validate", entryPath).CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", entryPath, err, out)
	}
	if out, err := exec.Command("appstreamcli", "validate", "--no-net", "--pedantic", metaPath).CombinedOutput(); err != nil {
		t.Errorf("appstreamcli validate %s: %v\n%s", metaPath, err, out)
	}
}

// validators reports whether desktop-file-validate and appstreamcli are
// installed; `make package` installs them and sets PACKAGE_DEB, and then
// their absence fails the test.
func validators(t *testing.T) bool {
	t.Helper()
	for _, tool := range []string{"desktop-file-validate", "appstreamcli"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PACKAGE_DEB") != "" {
				t.Fatalf("%s is not installed (make package installs it): %v", tool, err)
			}
			t.Logf("%s is not installed: the desktop files are checked against FyneApp.toml only", tool)
			return false
		}
	}
	return true
}

// TestLinuxDesktopFiles: the desktop entry and the AppStream metainfo of
// the Linux packages say what FyneApp.toml says, and validate.
func TestLinuxDesktopFiles(t *testing.T) {
	checkDesktopFiles(t, readLinuxMeta(t), desktopEntrySrc, metainfoSrc, validators(t))
}

// TestLinuxPackages checks the .deb and .rpm of `make package`
// (PACKAGE_DEB, PACKAGE_RPM; the test is skipped without them): the .deb's
// name, version and declared dependencies, and every file where a desktop
// looks for it, unpacked: both binaries (run), the desktop entry and
// metainfo (validated), the icon in the hicolor theme. The .rpm is read
// without rpm(8): its lead, its version and the paths and dependencies its
// header names.
func TestLinuxPackages(t *testing.T) {
	deb, rpm := os.Getenv("PACKAGE_DEB"), os.Getenv("PACKAGE_RPM")
	if deb == "" || rpm == "" {
		t.Skip("PACKAGE_DEB and PACKAGE_RPM name the packages (make package builds them and runs this test)")
	}
	m := readLinuxMeta(t)
	id := m.Details.ID
	field := func(name string) string {
		out, err := exec.Command("dpkg-deb", "-f", deb, name).Output()
		if err != nil {
			t.Fatalf("dpkg-deb -f %s %s: %v", deb, name, err)
		}
		return strings.TrimSpace(string(out))
	}
	if p, v := field("Package"), field("Version"); p != "trustscreen-reviewer" || v != m.Details.Version+"-"+strconv.Itoa(m.Details.Build) {
		t.Errorf("the .deb is %s %s, want trustscreen-reviewer %s-%d", p, v, m.Details.Version, m.Details.Build)
	}
	depends := field("Depends")
	for _, d := range []string{"libc6", "libgl1", "libx11-6", "libxcursor1", "libxrandr2", "libxinerama1", "libxi6", "libxxf86vm1"} {
		if !strings.Contains(", "+depends+",", ", "+d+",") && !strings.Contains(", "+depends, ", "+d+" (") {
			t.Errorf("the .deb does not depend on %s: Depends: %s", d, depends)
		}
	}

	root := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v: %s", err, out)
	}
	bin := filepath.Join(root, "usr", "bin", "reviewer")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.HasPrefix(string(out), m.Details.Name+" "+m.Details.Version+" (build ") {
		t.Errorf("%s --version: %q %v", bin, out, err)
	}
	pdfBin := filepath.Join(root, "usr", "bin", "reviewer-pdf")
	if out, err := exec.Command(pdfBin, "-h").CombinedOutput(); !strings.Contains(string(out), "PDF renderer of "+m.Details.Name) {
		t.Errorf("%s -h: %q %v", pdfBin, out, err)
	}
	share := filepath.Join(root, "usr", "share")
	checkDesktopFiles(t, m, filepath.Join(share, "applications", id+".desktop"), filepath.Join(share, "metainfo", id+".metainfo.xml"), validators(t))
	icon, err := os.ReadFile(filepath.Join(share, "icons", "hicolor", "256x256", "apps", id+".png"))
	if err != nil {
		t.Fatal(err)
	}
	if src, err := os.ReadFile(m.Details.Icon); err != nil || !bytes.Equal(icon, src) {
		t.Errorf("the hicolor icon is not %s (256x256): %v", m.Details.Icon, err)
	}

	b, err := os.ReadFile(rpm)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0xed, 0xab, 0xee, 0xdb}) {
		t.Fatalf("%s is not an RPM", rpm)
	}
	// The header (uncompressed, before the payload) names every file by
	// its folder and base name, and every dependency.
	for _, s := range []string{"trustscreen-reviewer", m.Details.Version, "/usr/bin/", "reviewer-pdf", "/usr/share/applications/", id + ".desktop",
		"/usr/share/icons/hicolor/256x256/apps/", id + ".png", "/usr/share/metainfo/", id + ".metainfo.xml",
		"libglvnd-glx", "libX11", "libXcursor", "libXrandr", "libXinerama", "libXi", "libXxf86vm"} {
		if !bytes.Contains(b[:min(len(b), 64<<10)], []byte(s)) {
			t.Errorf("the .rpm's header does not name %q", s)
		}
	}
}
