package policy

// Who the reviewer is, as the service says (contract 1.1: GET /v1/me), and
// which contract it speaks. The client reads it from the service and the
// cache keeps it, as it is, for offline use: one idea, one type.

// Identity is who the service says the reviewer is, and which contract it
// speaks.
type Identity struct {
	Reviewer    string `json:"reviewer"`
	DisplayName string `json:"display_name"`
	// APIVersion is "1.1", "1.0", or "" when not known yet. The service does
	// not send it: a service that answers GET /v1/me speaks 1.1, and one that
	// answers 404 there speaks 1.0.
	APIVersion string `json:"-"`
}
