package review

import (
	"context"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// TeamAPI is what working as a team needs of the API (contract 1.1).
type TeamAPI interface {
	Me(ctx context.Context) (client.Identity, []client.Attempt, error)
	Claim(ctx context.Context, id string, ttl time.Duration) (policy.Item, []client.Attempt, error)
	Release(ctx context.Context, id string) (policy.Item, []client.Attempt, error)
	AddNote(ctx context.Context, id, key, text string, opts ...client.CallOption) (policy.Note, []client.Attempt, error)
}
