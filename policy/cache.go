package policy

// Codes of a local cache that cannot be used as it is. None of them is a
// verdict of the service and none of them is INTERNAL_ERROR: each says what
// is wrong with the cache file, and its message says what to do.
const (
	CodeCacheReadOnly Code = "CACHE_READ_ONLY" // the cache (or its folder) cannot be written: reads still work
	CodeCacheNewer    Code = "CACHE_NEWER"     // the cache was made by a newer console
	CodeCacheSchema   Code = "CACHE_SCHEMA"    // the cache's migrations cannot be brought up to date in order
	CodeCacheDamaged  Code = "CACHE_DAMAGED"   // SQLite found the cache file malformed
	CodeDiskFull      Code = "DISK_FULL"       // the disk that holds the cache is full
)

func init() {
	// Kept apart from the codeWords literal (words.go): these codes belong
	// to the cache, and their words to it.
	codeWords[CodeCacheReadOnly] = "The cache cannot be written"
	codeWords[CodeCacheNewer] = "This cache was made by a newer console"
	codeWords[CodeCacheSchema] = "The cache's schema cannot be brought up to date"
	codeWords[CodeCacheDamaged] = "The cache file is damaged"
	codeWords[CodeDiskFull] = "The disk that holds the cache is full"
}
