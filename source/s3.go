package source

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// openS3 opens s3://bucket?params with the AWS SDK's standard
// configuration (AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
// AWS_PROFILE and the shared files, web identity, container and instance
// roles; AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3 for an S3-compatible
// store) and gocloud.dev's URL parameters (region=, endpoint=, profile=,
// anonymous=true, …). On top of what s3blob's own opener does, it
// addresses buckets path-style (endpoint/bucket/key) when
// AWS_S3_USE_PATH_STYLE=true or use_path_style=true, or, unless told
// otherwise, when the endpoint is an IP address or localhost, where
// bucket.host names cannot resolve; and with no region configured it
// signs for us-east-1, which S3-compatible stores accept.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	pathStyle, pathStyleSet := false, false
	if v := os.Getenv("AWS_S3_USE_PATH_STYLE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("AWS_S3_USE_PATH_STYLE=%q: want true or false", v)
		}
		pathStyle, pathStyleSet = b, true
	}
	for _, k := range []string{"use_path_style", "s3ForcePathStyle"} {
		if v := q.Get(k); v != "" {
			q.Del(k)
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s=%q: want true or false", k, v)
			}
			pathStyle, pathStyleSet = b, true
		}
	}
	disableHTTPS := false
	if v := q.Get("disable_https"); v != "" {
		q.Del("disable_https")
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("disable_https=%q: want true or false", v)
		}
		disableHTTPS = b
	}
	for _, k := range []string{"ssetype", "kmskeyid", "accelerate"} {
		q.Del(k) // for writes, or not for a custom endpoint; reads ignore them
	}
	endpoint := q.Get("endpoint")
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL_S3")
	}
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL")
	}
	if !pathStyleSet && endpoint != "" && ipOrLocalhost(endpoint) {
		pathStyle = true
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = pathStyle
		if disableHTTPS {
			o.EndpointOptions.DisableHTTPS = true
		}
	})
	return s3blob.OpenBucket(ctx, client, u.Host, nil)
}

// ipOrLocalhost reports whether an endpoint URL's host is an IP address
// or localhost.
func ipOrLocalhost(endpoint string) bool {
	host := endpoint
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(endpoint); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return net.ParseIP(host) != nil || strings.EqualFold(host, "localhost")
}
