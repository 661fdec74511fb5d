package main

import "embed"

//go:generate go tool templ generate

// staticFiles are the admin UI's CSS, JS and images, served from /static/.
//
//go:embed static
var staticFiles embed.FS
