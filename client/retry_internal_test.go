package client

import (
	"context"
	"testing"
)

func TestShouldRetry(t *testing.T) {
	tests := []struct {
		class      Class
		made, max  int
		ctxErr     error
		budgetLeft bool
		want       bool
	}{
		{ClassNotConnected, 1, 2, nil, true, true},
		{ClassNotConnected, 2, 2, nil, true, false}, // only once
		{ClassNotConnected, 1, 1, nil, true, false}, // retries off
		{ClassNotConnected, 1, 2, nil, false, false},
		{ClassNotConnected, 1, 2, context.Canceled, true, false},
		{ClassNotConnected, 1, 2, context.DeadlineExceeded, true, false},
		{ClassUnknown, 1, 2, nil, true, false},
		{ClassAnsweredNo, 1, 2, nil, true, false},
		{ClassRateLimited, 1, 2, nil, true, false},
		{ClassUntrusted, 1, 2, nil, true, false},
		{ClassBadAnswer, 1, 2, nil, true, false},
		{ClassNotStarted, 1, 2, nil, true, false},
		{ClassOK, 1, 2, nil, true, false},
	}
	for _, tt := range tests {
		if got := shouldRetry(tt.class, tt.made, tt.max, tt.ctxErr, tt.budgetLeft); got != tt.want {
			t.Errorf("shouldRetry(%s, %d/%d, %v, %v) = %v", tt.class, tt.made, tt.max, tt.ctxErr, tt.budgetLeft, got)
		}
	}
}
