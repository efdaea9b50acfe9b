package store

import (
	"context"
	"database/sql"
)

// Who the reviewer is, as the service last said (GET /v1/me), and which
// contract it speaks: kept in sync_state for offline use.

// Identity is who the service says the reviewer is, and which contract it
// speaks, as last learnt.
type Identity struct {
	Reviewer    string
	DisplayName string
	APIVersion  string // "1.1", "1.0", or "" when not known yet
}

// Identity returns what the cache knows of the reviewer's identity.
func (db *DB) Identity(ctx context.Context) (Identity, error) {
	var id Identity
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"me_reviewer", &id.Reviewer}, {"me_display_name", &id.DisplayName}, {"api_version", &id.APIVersion}} {
		if *f.dst, err = getString(ctx, db.db, f.key); err != nil {
			return id, err
		}
	}
	return id, nil
}

// SetIdentity stores what the service said: the reviewer (when it offers
// GET /v1/me) and the contract version.
func (db *DB) SetIdentity(ctx context.Context, id Identity) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
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
