module github.com/trustscreen/reviewer

go 1.26.8

require (
	github.com/go-resty/resty/v2 v2.17.2
	github.com/mattn/go-sqlite3 v1.14.53
	github.com/pressly/goose/v3 v3.30.1
	github.com/sony/gobreaker/v2 v2.4.0
)

require (
	github.com/mfridman/interpolate v0.2.0 // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)
