// Package reliability holds no code of the console: it is the suite that
// keeps the console's promises true under hostile conditions, and it lives in
// a package of its own because it tests the whole program from the outside,
// across every other package, with tools no other package needs.
//
// It drives the real command line (package cli, in-process through its Env,
// or the test binary re-executed as a child process) against the reference
// service (package screenapi) on loopback, with a real TCP proxy between
// them: Shopify's toxiproxy v2.5.0, run in-process. It checks:
//
//   - the fault matrix: every toxic (latency past the timeout, bandwidth 0,
//     slow_close, timeout, reset_peer, limit_data, slicer), upstream and
//     downstream, against every call (sync, re-submit, file request,
//     replacement). Each cell records the outcome class, the exit status,
//     the arrivals and the paid analyses at the service, and the cache after
//     a final flush (or sync) with the proxy healthy; it asserts at most one
//     paid analysis per action, no action lost, and an exit status that
//     matches the outcome;
//   - the kill loop: SIGKILLs at random points of a flush and of a sync, then
//     PRAGMA integrity_check, no lost action and one effect each at the
//     service;
//   - the upgraded-cache race: two caches that know no revision confirm the
//     same bulk re-submission at once; one analysis per item, no POST
//     without If-Match;
//   - (full only) the large bulk confirmation: a note from another process
//     gets in while 100,000 actions are queued.
//
// It is a module of its own (go.mod here, with the console's module
// replaced by ../), so that toxiproxy and the modules it pulls in are not
// the product's requirements. `cd reliability && go test .` (part of
// `make test`) runs a short form: a few
// representative cells and a few kills. `make reliability` sets
// RELIABILITY=full and runs the whole matrix and 20 + 20 kills, and prints
// the matrix; docs/reliability.md records the method and a measured run.
package reliability
