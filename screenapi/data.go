package screenapi

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// profile is how a seeded item looks.
type profile struct {
	status string
	code   string
	broken string // how it breaks the contract, if it does
}

// The profiles cycle so that every status and every code, an unknown code
// and each kind of broken answer appear in the first batches.
var profiles = []profile{
	{status: "scored"}, {status: "error", code: "CLASSIFIER_TIMEOUT"}, {status: "scored"},
	{status: "error", code: "DECODE_FAILED"}, {status: "error", code: "CLASSIFIER_UNAVAILABLE"},
	{status: "scored"}, {status: "error", code: "PAYLOAD_TOO_LARGE"}, {status: "pending"},
	{status: "error", code: "FORENSICS_UNREACHABLE"}, {status: "scored"},
	{status: "error", code: "UNSUPPORTED_MEDIA_TYPE"}, {status: "error", code: "SOURCE_UNREACHABLE"},
	{status: "awaiting_file"}, {status: "scored"}, {status: "error", code: "INTERNAL_ERROR"},
	{status: "error", code: "QUANTUM_FLUX_CAPACITOR"}, {status: "scored"},
	{status: "error", code: "CLASSIFIER_TIMEOUT", broken: "score"},
	{status: "scored", broken: "no_score"}, {status: "scored", broken: "range"},
	{status: "done", broken: "status"}, {status: "scored"}, {status: "scored"},
}

var fileNames = []string{"passport-front.jpg", "passport-back.jpg", "id-card-front.png", "id-card-back.png",
	"driving-licence.pdf", "selfie.jpg", "selfie-2.webp", "residence-permit.jpg", "utility-bill.pdf", "utility-bill.png"}

func scoreFor(id string, attempt int) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", id, attempt)
	return int(h.Sum32() % 101)
}

func recommend(score int) string {
	switch {
	case score < 40:
		return "forward"
	case score < 75:
		return "review"
	}
	return "reject"
}

func fp(v float64) *float64 { return &v }
func sp(v string) *string   { return &v }

func setScored(it *policy.RawItem, score int) {
	s := float64(score)
	it.Status, it.RiskScore, it.Recommendation = "scored", &s, sp(recommend(score))
	it.ErrorCode, it.ErrorMessage = nil, nil
	k := float64(score) / 100
	it.Layers = map[string]*float64{"metadata": fp(round2(k * 0.4)), "ela": fp(round2(k * 0.8)),
		"ai_generation": fp(round2(k)), "face_match": fp(round2(1 - k))}
	if it.Kind != string(policy.KindSelfie) {
		delete(it.Layers, "face_match")
	}
}

// setError puts an item in error with a code (reported as is, known or not).
func setError(it *policy.RawItem, code string) {
	msg := codeMessage(code)
	it.Status, it.ErrorCode, it.ErrorMessage = "error", &code, &msg
	it.RiskScore, it.Recommendation, it.Layers = nil, nil, nil
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

func (s *Server) seed() {
	rng := rand.New(rand.NewSource(s.opts.Seed))
	// Batches are 9 minutes apart from a fixed start, so the data is the
	// same on every run; a large seed starts early enough that its newest
	// batch is still in the past (a date ahead of the console's clock is a
	// broken answer, and the console treats it so).
	base := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	if last := s.opts.Now().UTC().Add(-time.Hour - time.Duration(s.opts.Batches)*9*time.Minute); last.Before(base) {
		base = last.Truncate(time.Hour)
	}
	n := 0
	for b := 0; b < s.opts.Batches; b++ {
		created := base.Add(time.Duration(b) * 9 * time.Minute)
		bt := &batch{ID: fmt.Sprintf("bat_%04d", b+1), CustomerRef: fmt.Sprintf("CUST-%04d", 7000+b+1), CreatedAt: created}
		size := 1 + rng.Intn(10)
		if b < 3 {
			size = 10
		}
		if n := s.opts.ItemsPerBatch; n > 0 {
			size = min(n, 10)
		}
		for i := 0; i < size; i++ {
			p := profiles[n%len(profiles)]
			n++
			it := &policy.RawItem{
				ID: fmt.Sprintf("itm_%04d_%02d", b+1, i+1), BatchID: bt.ID, Kind: string(policy.KindIDDocument),
				FileName: fileNames[rng.Intn(len(fileNames))], MediaType: "image/jpeg",
				SizeBytes: int64(80_000 + rng.Intn(900_000)), Attempt: 1,
				UpdatedAt: created.Add(time.Duration(1+rng.Intn(8)) * time.Minute),
			}
			if it.FileName[:6] == "selfie" {
				it.Kind = string(policy.KindSelfie)
			}
			switch it.FileName[len(it.FileName)-3:] {
			case "png":
				it.MediaType = "image/png"
			case "pdf":
				it.MediaType = "application/pdf"
			case "ebp":
				it.MediaType = "image/webp"
			}
			switch p.status {
			case "scored":
				setScored(it, scoreFor(it.ID, 1))
			case "error":
				setError(it, p.code)
			case "pending":
				it.Attempt = 0
			}
			it.Status = p.status
			switch p.broken {
			case "score": // an error that carries a score
				it.RiskScore, it.Recommendation = fp(12), sp("forward")
			case "no_score": // scored without a score
				it.RiskScore = nil
			case "range": // a score out of range
				it.RiskScore = fp(140)
			}
			s.items[it.ID] = it
			s.seedTeam(it, created)
			bt.ItemIDs = append(bt.ItemIDs, it.ID)
			if it.UpdatedAt.After(bt.UpdatedAt) {
				bt.UpdatedAt = it.UpdatedAt
			}
		}
		if s.v12() {
			s.seedDecidable(bt, b)
		}
		s.batches[bt.ID] = bt
	}
}

func (s *Server) seedTeam(it *policy.RawItem, created time.Time) {
	s.team[it.ID] = &itemTeam{revision: 1, status: it.Status, statusSince: it.UpdatedAt.Add(-seedWait(it.ID)),
		files: []fileVersion{{Version: 1, FileName: it.FileName, MediaType: it.MediaType, SizeBytes: it.SizeBytes, UploadedAt: created}}}
}

// seedWait is how long before its last update a seeded item entered its
// status: 0 to 9 days, spread by its id (not by the seed's random source,
// whose sequence the rest of the data follows), so that the demo has
// fresh, warning and overdue items, the same on every run.
func seedWait(id string) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(id))
	const span = 9 * 24 * 60 // minutes
	return time.Duration(h.Sum32()%span) * time.Minute
}
