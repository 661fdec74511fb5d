package main

import (
	_ "embed"

	"embed"
)

//go:generate go tool templ generate

// staticFiles are the admin UI's CSS, JS and images and the vendored Redoc, served from /static/.
//
//go:embed static
var staticFiles embed.FS

// openAPIDocument is the OpenAPI 3.1 document of the integration API, served at /openapi.json
// and rendered at /docs. web's tests hold every API response to it.
//
//go:embed openapi.json
var openAPIDocument []byte
