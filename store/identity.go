package store

import (
	"context"
	"database/sql"

	"github.com/trustscreen/reviewer/policy"
)

// Who the reviewer is, as the service last said (GET /v1/me), and which
// contract it speaks: kept in sync_state for offline use.

// Identity returns what the service last said of the reviewer's identity,
// as the cache kept it.
func (s *TeamStore) Identity(ctx context.Context) (policy.Identity, error) {
	var id policy.Identity
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"me_reviewer", &id.Reviewer}, {"me_display_name", &id.DisplayName}, {"api_version", &id.APIVersion}} {
		if *f.dst, err = getString(ctx, s.db, f.key); err != nil {
			return id, err
		}
	}
	return id, nil
}

// SetIdentity stores what the service said: the reviewer (when it offers
// GET /v1/me) and the contract version.
func (s *TeamStore) SetIdentity(ctx context.Context, id policy.Identity) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if id.Reviewer != "" {
			if err := setString(ctx, tx, "me_reviewer", id.Reviewer); err != nil {
				return err
			}
			if err := setString(ctx, tx, "me_display_name", id.DisplayName); err != nil {
				return err
			}
		}
		return setString(ctx, tx, "api_version", id.APIVersion)
	})
}
