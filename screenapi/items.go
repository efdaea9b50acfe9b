package screenapi

import (
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// An item as a 1.1 service holds and sends it: its revision, when it entered
// its status, and its file versions, beside its claim (claims.go) and its
// notes (notes.go).

// itemTeam is the 1.1 state of one item.
type itemTeam struct {
	revision    int64
	status      string // the status status_since refers to
	statusSince time.Time
	claim       *policy.RawClaim
	notes       []policy.RawNote
	files       []fileVersion
	decisions   []decision // 1.2: oldest first, the current one last
}

type fileVersion struct {
	Version    int       `json:"version"`
	FileName   string    `json:"file_name"`
	MediaType  string    `json:"media_type"`
	SizeBytes  int64     `json:"size_bytes"`
	UploadedAt time.Time `json:"uploaded_at"`
	// data is the file's bytes: what a replacement uploaded, or, for a
	// seeded version, drawn when first asked for (documents.go).
	data []byte
}

// changed records a change the service made to an item (s.mu held): the
// revision moves on, and status_since follows a new status.
func (s *Server) changed(it *policy.RawItem, now time.Time) {
	t := s.team[it.ID]
	if t == nil {
		return
	}
	t.revision++
	if t.status != it.Status {
		t.status, t.statusSince = it.Status, now
	}
}

func (s *Server) addVersion(it *policy.RawItem, mediaType string, data []byte) {
	t := s.team[it.ID]
	if t == nil {
		return
	}
	t.files = append(t.files, fileVersion{Version: len(t.files) + 1, FileName: it.FileName, MediaType: mediaType,
		SizeBytes: it.SizeBytes, UploadedAt: s.opts.Now().UTC().Truncate(time.Millisecond), data: data})
}

// wireItem is an item as a 1.1 service sends it. Its own fields are spelled
// out here, apart from the console's decoding, so that the raw-HTTP tests
// check the contract's names.
type wireItem struct {
	*policy.RawItem
	Revision     int64         `json:"revision"`
	StatusSince  time.Time     `json:"status_since"`
	FileVersions []fileVersion `json:"file_versions"`
	Claim        *wireClaim    `json:"claim"`
	Notes        []wireNote    `json:"notes"`
}

type wireClaim struct {
	Reviewer  string    `json:"reviewer"`
	ExpiresAt time.Time `json:"expires_at"`
}

type wireNote struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// wire is an item as this service version sends it (s.mu held).
func (s *Server) wire(it *policy.RawItem) any {
	cp := *it
	t := s.team[it.ID]
	if !s.v11() || t == nil {
		return &cp
	}
	w := wireItem{RawItem: &cp, Revision: t.revision, StatusSince: t.statusSince,
		FileVersions: append([]fileVersion{}, t.files...), Notes: []wireNote{}}
	if c := s.liveClaim(it.ID); c != nil {
		w.Claim = &wireClaim{Reviewer: c.Reviewer, ExpiresAt: c.ExpiresAt}
	}
	for _, n := range t.notes {
		w.Notes = append(w.Notes, wireNote(n))
	}
	if s.v12() {
		return wireItem12{wireItem: w, Decisions: append([]decision{}, t.decisions...)}
	}
	return w
}

// wireItem12 is an item as a 1.2 service sends it: its decisions, [] when
// none (decisions.go).
type wireItem12 struct {
	wireItem
	Decisions []decision `json:"decisions"`
}

// Revision is an item's revision at the service.
func (s *Server) Revision(itemID string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.team[itemID]; t != nil {
		return t.revision
	}
	return 0
}
