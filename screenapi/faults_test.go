package screenapi_test

import (
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

func TestFaultsReachTheVersion11Endpoints(t *testing.T) {
	srv, _ := start11(t, "")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPMe, Times: 1})
	if st, m := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/me"}); st != 503 || m["error_code"] != "SERVICE_UNAVAILABLE" {
		t.Fatalf("%d %v", st, m)
	}
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPClaim, Times: 1})
	if st, _ := call(t, srv, req{tok: anaTok, method: "PUT", path: "/v1/items/" + id + "/claim", body: `{"ttl_seconds": 60}`}); st != 429 {
		t.Fatalf("claim: %d", st)
	}
	if srv.Arrivals(screenapi.EPMe) != 1 || srv.Arrivals(screenapi.EPClaim) != 1 || srv.ClaimOf(id) != "" {
		t.Fatal("arrivals or a claim made through a fault")
	}
}
