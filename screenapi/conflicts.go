package screenapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/trustscreen/reviewer/policy"
)

// Conflicts (contract version 1.1): a POST on an item that another reviewer
// holds (409 CLAIMED) or that changed since the revision in its If-Match
// (412 ITEM_CHANGED) is refused with the item as it is now.

// refusal is the 409 or 412 of the contract, with the item as it is now
// (s.mu held).
func (s *Server) refusal(status int, code policy.Code, msg string, it *policy.RawItem) answer {
	return jsonAnswer(status, map[string]any{"error_code": string(code), "error_message": msg, "item": s.wire(it)})
}

// guard refuses a POST on an item held by another reviewer (409 CLAIMED) or
// carrying an If-Match of another revision (412 ITEM_CHANGED). A note is
// how reviewers speak about an item, so it is accepted whoever holds the
// item (contract 1.1, amended). s.mu held.
func (s *Server) guard(r *http.Request, id, ep string) (answer, bool) {
	if !s.v11() {
		return answer{}, false // a 1.0 service knows neither
	}
	if ep != EPNote {
		if a, refused := s.claimedAnswer(r, id); refused {
			return a, true
		}
	}
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return answer{}, false
	}
	rev, err := strconv.ParseInt(strings.Trim(v, `"`), 10, 64)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, `If-Match must be a revision in quotes, such as "7"`), true
	}
	if t := s.team[id]; t != nil && t.revision != rev {
		return s.refusal(412, policy.CodeItemChanged, fmt.Sprintf("the item is at revision %d, not %d", t.revision, rev), s.items[id]), true
	}
	return answer{}, false
}
