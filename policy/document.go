package policy

import "time"

// Contract version 1.1: an item's file versions (the customer's documents,
// oldest first; a replacement appends one).

// RawFileVersion is a file version as the service listed it.
type RawFileVersion struct {
	Version    int       `json:"version"`
	FileName   string    `json:"file_name"`
	MediaType  string    `json:"media_type"`
	SizeBytes  int64     `json:"size_bytes"`
	UploadedAt time.Time `json:"uploaded_at"`
}

// FileVersion is one version of an item's file, as the console knows it.
type FileVersion struct {
	Version    int
	FileName   string
	MediaType  string
	SizeBytes  int64
	UploadedAt time.Time
}

// DocumentTypes are the media types a document may have (the contract's
// JPEG, PNG, WebP and PDF).
var DocumentTypes = []string{"image/jpeg", "image/png", "image/webp", "application/pdf"}
