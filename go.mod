module github.com/trustscreen/reviewer

go 1.26.8

require (
	github.com/go-resty/resty/v2 v2.17.2
	github.com/sony/gobreaker/v2 v2.4.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.62.0 // indirect
)
