package views

import "context"

type assetVersionKey struct{}

// WithAssetVersion returns ctx carrying the build's asset version (a hash of the static files),
// which Asset puts in the URLs of the files pages load.
func WithAssetVersion(ctx context.Context, version string) context.Context {
	return context.WithValue(ctx, assetVersionKey{}, version)
}

// Asset is the URL of a static file of this build, path?v=version: a new build's pages never
// load an older build's copy from a cache (the service worker's included), and the service
// worker caches only such versioned files. Without a version it is path.
func Asset(ctx context.Context, path string) string {
	if v, _ := ctx.Value(assetVersionKey{}).(string); v != "" {
		return path + "?v=" + v
	}
	return path
}
