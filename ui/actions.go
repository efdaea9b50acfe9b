package ui

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// flight is an action of this window that waits for the API. Only the item
// it acts on is busy: the reviewer goes on with the others meanwhile.
type flight struct {
	kind     policy.ActionKind
	label    string
	start    time.Time
	cancel   context.CancelFunc
	stopping bool
}

// flight returns the action in flight on an item, or nil.
func (c *Console) flight(itemID string) *flight {
	if itemID == "" {
		return nil
	}
	return c.flights[itemID]
}

// tick redraws the time spent on the shown item's action each second
// while any action is in flight.
func (c *Console) tick() {
	if c.ticking || len(c.flights) == 0 {
		return
	}
	c.ticking = true
	time.AfterFunc(time.Second, func() {
		c.onUI(false, func() {
			c.ticking = false
			if c.flight(c.panel.itemID) != nil {
				c.panel.renderMessage()
			}
			c.tick()
		})
	})
}

// act runs an action in the background. Its item's buttons are off from
// the click until the outcome is in: together with the outbox's
// one-open-action rule, a double click is one action. The panel shows the
// time spent and the limit, and offers "Stop waiting".
func (p *itemPanel) act(kind policy.ActionKind, label string, run func(ctx context.Context, id string) (review.Result, error)) {
	if !p.ready() || p.c.flight(p.itemID) != nil {
		return
	}
	id, file, batchID := p.itemID, p.detail.FileName, p.detail.BatchID
	ctx, cancel := context.WithCancel(p.c.ctx)
	p.c.flights[id] = &flight{kind: kind, label: label, start: p.c.opts.Now(), cancel: cancel}
	p.c.sayActionStart(file, label) // strip.go: at once, whatever the wait
	p.note, p.noteDetails, p.noteItem = "", "", ""
	p.team.working(id) // claims.go: acting claims the item, kept while the action is open
	p.c.items.showSending(id, kind)
	p.render()
	p.c.tick()
	p.c.background(func(context.Context) func() {
		res, err := run(ctx, id)
		return func() {
			stopped := p.c.flights[id] != nil && p.c.flights[id].stopping
			cancel()
			delete(p.c.flights, id)
			if p.itemID == id {
				p.renderMessage() // the wait is over, whatever comes next
			}
			if err == nil {
				p.c.notifyLine(actionEndLine(kind, id, res.Action.State, res.Action.LastErrorCode)) // notify.go
			}
			p.c.sayActionResult(kind, id, file, batchID, res, err) // strip.go: where she looks, with b back
			if err != nil {
				p.setNote(id, err)
			} else if p.c.settings.autoAdvance() && p.itemID == id && res.Action.ID != 0 && !stopped {
				// (After Stop waiting the reviewer stays to see the outcome.)
				p.c.items.advanceFrom = id
			}
			p.c.reload()
		}
	})
}

// onStopWaiting stops waiting for the shown item's action. Its context is
// cancelled: a request that went out is recorded as unknown and checked
// later with the same key; one that had not gone out stays queued. It is
// never sent again blind.
func (p *itemPanel) onStopWaiting() {
	f := p.c.flight(p.itemID)
	if f == nil || f.stopping {
		return
	}
	f.stopping = true
	f.cancel()
	p.renderMessage()
}

// onResubmit asks first: a re-submission is a paid re-run. The dialog's
// default button confirms, so r then Enter does it.
func (p *itemPanel) onResubmit() {
	if !p.ready() || p.c.flight(p.itemID) != nil || p.refused(policy.CanResubmit(p.situation())) {
		return
	}
	if p.team.refuseHeld("re-submitting") { // claims.go: who holds it and until when, not the confirmation
		return
	}
	p.team.working(p.itemID) // claims.go: opening a decision on it is starting work on it
	id, name := p.itemID, p.detail.FileName
	p.c.confirm("Re-submit "+shown(name)+"?",
		"This runs the paid analysis again on the same file, once. A re-run may help with "+shown(string(p.detail.ErrorCode))+".",
		"Re-submit", func() {
			if p.itemID == id {
				p.act(policy.ActionResubmit, "Re-submitting", p.c.wf.Actions.Resubmit)
			}
		})
}

// confirm shows a question whose default button (Enter) confirms; Esc
// or Cancel does nothing, Tab reaches the buttons (form.go).
func (c *Console) confirm(title, text, action string, yes func()) {
	l := newLabel(text)
	l.Wrapping = fyne.TextWrapWord
	f := newDialogForm(c.win, c)
	ok := f.defaultButton(action+" (Enter)", func() {
		f.hide()
		yes()
	})
	f.show(title, l, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), ok}, 440)
}

// onRequestFile asks for the message to the customer, pre-filled from the
// code. An empty message is refused here: what is sent is what was on
// screen.
func (p *itemPanel) onRequestFile() {
	if !p.ready() || p.c.flight(p.itemID) != nil || p.refused(policy.CanRequestFile(p.situation())) {
		return
	}
	if p.team.refuseHeld("requesting a file") { // claims.go: who holds it and until when, not the confirmation
		return
	}
	p.team.working(p.itemID) // claims.go: opening a decision on it is starting work on it
	id := p.itemID
	newRequestDialog(p.c, policy.Info(p.detail.ErrorCode).CustomerMessage, func(msg string) {
		if p.itemID == id {
			p.requestFile(msg)
		}
	})
}

// requestDialog is the "Request a new file" dialog.
type requestDialog struct {
	msg  *formEntry
	why  *textLabel
	send *formButton
	form *dialogForm
}

// newRequestDialog shows the dialog with the message box focused, its
// cursor after the suggested text: Ctrl+Enter sends, Enter makes a new
// line, Tab moves to the buttons, Esc cancels.
func newRequestDialog(c *Console, text string, send func(string)) *requestDialog {
	f := newDialogForm(c.win, c)
	rd := &requestDialog{form: f, msg: f.multiLine(4), why: newLabel("")}
	rd.msg.SetText(text)
	rd.why.Importance = widget.DangerImportance
	rd.why.Wrapping = fyne.TextWrapWord
	rd.send = f.defaultButton("Send (Ctrl+Enter)", func() {
		if _, err := policy.CheckCustomerMessage(rd.msg.Text); err != nil {
			return
		}
		f.hide()
		send(rd.msg.Text)
	})
	cancel := f.cancelButton("Cancel (Esc)")
	rd.msg.OnChanged = func(s string) {
		// The same check the workflow makes before queueing, said at once.
		_, err := policy.CheckCustomerMessage(s)
		switch {
		case strings.TrimSpace(s) == "":
			rd.send.Disable()
			rd.why.SetText("Write a message: the customer needs to know what to send.")
			rd.why.Show()
		case err != nil:
			rd.send.Disable()
			rd.why.SetText(policy.ErrorMessage(err))
			rd.why.Show()
		default:
			rd.send.Enable()
			rd.why.Hide()
		}
	}
	rd.msg.OnChanged(text)
	body := container.NewVBox(newLabel("Message to the customer (sent exactly as written):"), rd.msg, f.hint(), rd.why)
	f.show("Request a new file", body, []fyne.CanvasObject{cancel, rd.send}, 540)
	rd.msg.cursorToEnd()
	return rd
}

func (p *itemPanel) requestFile(message string) {
	p.act(policy.ActionFileRequest, "Requesting a new file", func(ctx context.Context, id string) (review.Result, error) {
		return p.c.wf.Actions.RequestFile(ctx, id, message)
	})
}

// uploadExts are the file types the service takes.
var uploadExts = []string{".jpg", ".jpeg", ".png", ".webp", ".pdf", ".JPG", ".JPEG", ".PNG", ".WEBP", ".PDF"}

// onUpload asks for the file the customer sent: a typed or dropped path,
// or one picked in a file dialog that starts in the last folder used and
// shows only JPEG, PNG, WebP and PDF files. The workflow checks the file
// before anything is sent.
func (p *itemPanel) onUpload() { p.openUpload("") }

// refused says in the strip why the action of a key (r, f, u, or a file
// dropped) is not offered on the shown item, in the policy's words, and
// reports whether it is not: a key that did nothing looked broken.
func (p *itemPanel) refused(err error) bool {
	if err == nil {
		return false
	}
	p.c.strip.say(sentence(err))
	return true
}

// onUploadAgain sends again the file a failed replacement kept (the
// service ran nothing): a new intent with a new key, no new file needed.
func (p *itemPanel) onUploadAgain() {
	if !p.ready() || p.detail.KeptFile == "" || policy.CanReplace(p.situation()) != nil {
		return
	}
	p.act(policy.ActionReplacement, "Uploading the kept file again", func(ctx context.Context, id string) (review.Result, error) {
		return p.c.wf.Actions.ReplaceAgain(ctx, id, review.ReplaceOptions{})
	})
}

func (p *itemPanel) openUpload(path string) {
	if !p.ready() || p.c.flight(p.itemID) != nil || p.refused(policy.CanReplace(p.situation())) {
		return
	}
	if p.team.refuseHeld("uploading a file") { // claims.go: who holds it and until when, not the confirmation
		return
	}
	p.team.working(p.itemID) // claims.go: opening a decision on it is starting work on it
	id := p.itemID
	ud := newUploadDialog(p.c, path, func(path string, opt review.ReplaceOptions) {
		p.c.settings.store().SetString(prefLastFolder, filepath.Dir(path))
		if p.itemID == id {
			p.uploadFile(path, opt)
		}
	})
	p.c.uploadDlg = ud
}

// uploadDialog is the "Upload replacement" dialog.
type uploadDialog struct {
	path   *formEntry
	why    *textLabel
	upload *formButton
	form   *dialogForm
	// anyway is her word that she uploads a file the console could not
	// check (review.ReplaceOptions.Unchecked): shown only for such a
	// file, and Upload waits for it.
	anyway *formCheck

	// The path's check runs off the UI goroutine (a typed path may name a
	// slow disk or a named pipe). checks counts the box's changes, so that
	// the answer for an older text is dropped; checked is the path whose
	// check passed (Upload sends only that one). checking is the path
	// being checked, and enter that she pressed Enter on it meanwhile: it
	// uploads when its check passes.
	checks   int
	checked  string
	checking string
	enter    bool
	// unchecked: the checked path is a file the console could not check.
	unchecked bool
}

// uploadCost is what the upload dialog says an upload costs.
const uploadCost = "Uploading runs one paid analysis of the new file."

func newUploadDialog(c *Console, path string, upload func(string, review.ReplaceOptions)) *uploadDialog {
	f := newDialogForm(c.win, c)
	ud := &uploadDialog{form: f, path: f.entry(), why: wrapped("")}
	ud.path.SetPlaceHolder("/path/to/the/file.jpg: type it, paste it, drop the file here, or Browse")
	ud.why.Importance = widget.DangerImportance
	ud.upload = f.defaultButton("Upload (Enter)", func() {
		p := strings.TrimSpace(ud.path.Text)
		if p == "" || p != ud.checked || ud.unchecked && !ud.anyway.Checked {
			return
		}
		f.hide()
		upload(p, review.ReplaceOptions{Unchecked: ud.unchecked})
	})
	ud.anyway = f.check("Upload it unchecked: the service may still read it", func(on bool) {
		if ud.unchecked && on && ud.checked != "" {
			ud.upload.Enable()
		} else if ud.unchecked {
			ud.upload.Disable()
		}
	})
	ud.anyway.Hide()
	ud.path.OnChanged = func(s string) { ud.check(c, strings.TrimSpace(s)) }
	f.whileOff = func() {
		// Enter typed right after the path, before its check answered:
		// kept for that path, not lost (nor typed into the box next).
		if p := strings.TrimSpace(ud.path.Text); p != "" && p == ud.checking {
			ud.enter = true
		}
	}
	browse := f.button("Browse…", func() { c.browse(ud.path) })
	cancel := f.cancelButton("Cancel (Esc)")
	body := container.NewVBox(newLabel("The file the customer sent (JPEG, PNG, WebP or PDF, at most 10 MiB):"),
		container.NewBorder(nil, nil, nil, browse, ud.path), ud.why, ud.anyway, wrapped(uploadCost))
	f.onClosed = func() {
		if c.uploadDlg == ud {
			c.uploadDlg = nil
		}
	}
	ud.path.SetText(path)
	ud.path.OnChanged(path)
	f.show("Upload replacement", body, []fyne.CanvasObject{cancel, ud.upload}, 620)
	ud.path.cursorToEnd()
	return ud
}

// check checks the path in the box off the UI goroutine: Upload stays off
// until the answer for this very text comes back through fyne.Do.
func (ud *uploadDialog) check(c *Console, p string) {
	ud.checks++
	n := ud.checks
	ud.checked, ud.checking, ud.enter, ud.unchecked = "", p, false, false
	ud.upload.Disable()
	ud.anyway.SetChecked(false)
	ud.anyway.Hide()
	setOrHide(ud.why, "") // empty: the placeholder says what to do
	if p == "" {
		return
	}
	c.background(func(ctx context.Context) func() {
		err := pathCheck(p)
		if err == nil {
			// The viewer's own checks (review.CheckUploadFile): a file it
			// would call damaged is not paid for.
			err = c.wf.Actions.CheckUploadFile(ctx, p)
		}
		return func() {
			if n != ud.checks {
				return // the box changed meanwhile: its own check answers
			}
			enter := ud.enter
			ud.checking, ud.enter = "", false
			if policy.ErrorCode(err) == policy.CodeFileUnchecked {
				// Sound, maybe, but not judged: she says so before it goes.
				setOrHide(ud.why, capitalize(policy.ErrorMessage(err)))
				ud.checked, ud.unchecked = p, true
				ud.anyway.Show()
				return
			}
			if err != nil {
				setOrHide(ud.why, capitalize(policy.ErrorMessage(err)))
				return
			}
			ud.checked = p
			ud.upload.Enable()
			if enter {
				ud.form.submit()
			}
		}
	})
}

// pathCheck is checkPath (a test holds it to see Enter pressed while it
// runs).
var pathCheck = checkPath

// checkPath says, before any upload, what is wrong with a path. It may
// wait on the disk: never call it on the UI goroutine. A named pipe, a
// device or a folder is refused without being opened (internal/safefile).
func checkPath(p string) error {
	if p == "" {
		return errors.New("type the file's path, drop the file here, or press Browse")
	}
	f, fi, err := safefile.Open(p)
	var notFile *safefile.NotRegularError
	switch {
	case errors.As(err, &notFile) && notFile.Kind == safefile.Kind(fs.ModeDir):
		return errors.New(p + " is a folder, not a file")
	case errors.As(err, &notFile):
		return errors.New(p + " is " + notFile.Kind + ", not a file")
	case err != nil:
		return errors.New("there is no readable file at " + p)
	}
	defer f.Close()
	if fi.Size() > policy.MaxFileSize {
		return errors.New("the file is larger than 10 MiB, the most the service takes")
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return errors.New("the file cannot be read")
	}
	if _, err := policy.CheckFile(head[:n]); err != nil {
		return errors.New(policy.ErrorMessage(err))
	}
	return nil
}

// browse opens a file dialog, filtered to the types the service takes, in
// the folder of the path typed in entry (or the last folder used), and
// puts the chosen path into entry.
func (c *Console) browse(entry *formEntry) {
	fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		entry.SetText(path)
		c.win.Canvas().Focus(entry)
	}, c.win)
	fd.SetFilter(storage.NewExtensionFileFilter(uploadExts))
	if dir := browseFolder(entry.Text, c.settings.store().String(prefLastFolder)); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(l)
		}
	}
	fd.Resize(fyne.NewSize(760, 520))
	fd.Show()
}

// browseFolder is where a file dialog starts: the folder of the typed path
// (the path itself when it is a folder) when that folder exists, else the
// last folder used ("" when neither: the dialog's own default).
func browseFolder(typed, last string) string {
	typed = strings.TrimSpace(typed)
	if typed != "" {
		for _, dir := range []string{typed, filepath.Dir(typed)} {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				return dir
			}
		}
	}
	return last
}

// onDropped takes a file dropped on the window: into the upload dialog when
// it is open, else it opens the upload dialog for the shown item.
func (c *Console) onDropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) == 0 {
		return
	}
	path := uris[0].Path()
	if c.uploadDlg != nil {
		c.uploadDlg.path.SetText(path)
		return
	}
	c.panel.openUpload(path)
}

func (p *itemPanel) uploadFile(path string, opt review.ReplaceOptions) {
	p.act(policy.ActionReplacement, "Uploading", func(ctx context.Context, id string) (review.Result, error) {
		return p.c.wf.Actions.ReplaceFile(ctx, id, path, opt)
	})
}

func (p *itemPanel) onCancel() {
	if !p.ready() || p.c.flight(p.itemID) != nil || p.detail.Action == nil || !policy.Cancellable(p.detail.OpenAction()) {
		return
	}
	actionID, id := p.detail.Action.ID, p.itemID
	p.cancel.Disable()
	p.c.background(func(ctx context.Context) func() {
		_, err := p.c.wf.Actions.Cancel(ctx, actionID)
		return func() {
			if err != nil {
				p.setNote(id, err)
			}
			p.c.reload()
		}
	})
}
