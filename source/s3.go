package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// openS3 opens s3://bucket?params with the AWS SDK's standard
// configuration (AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
// AWS_PROFILE and the shared files, web identity, container and instance
// roles; AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3 for an S3-compatible
// store) and the URL parameters gocloud.dev's s3blob takes for reading:
// region=, endpoint=, profile=, anonymous=true, dualstack=true,
// fips=true, use_path_style=true (or s3ForcePathStyle=true),
// disable_https=true. Buckets are addressed path-style (endpoint/bucket/
// key) when AWS_S3_USE_PATH_STYLE=true or use_path_style=true, or,
// unless told otherwise, when the endpoint is an IP address or localhost,
// where bucket.host names cannot resolve; with no region configured it
// signs for us-east-1, which S3-compatible stores accept. The SDK's own
// retries are not rate limited: the reader retries with its own backoff
// and resumes at the byte it reached. A refused connection is not
// retried: nothing listens at the endpoint, and two minutes of silent
// retries only hid it; nor is a store that has answered nothing and let
// a wait run out (see waitClient). sc.ConnectTimeout bounds the dial
// and the TLS handshake, sc.Timeout the wait for a response's headers.
func openS3(ctx context.Context, u *url.URL, sc Config) (bucket, error) {
	q := u.Query()
	pathStyle, pathStyleSet := false, false
	if v := os.Getenv("AWS_S3_USE_PATH_STYLE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("AWS_S3_USE_PATH_STYLE=%q: want true or false", v)
		}
		pathStyle, pathStyleSet = b, true
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.RateLimiter = ratelimit.None
				o.MaxBackoff = sdkMaxBackoff
				// First: the standard ones retry any failed dial.
				o.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
					if refused(err) || silent(err) {
						return aws.FalseTernary
					}
					return aws.UnknownTernary
				})}, o.Retryables...)
			})
		}),
		// A *BuildableClient, as the configuration's loading needs one to
		// add AWS_CA_BUNDLE's certificates; the S3 client wraps it below.
		config.WithHTTPClient(awshttp.NewBuildableClient().
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = sc.ConnectTimeout }).
			WithTransportOptions(func(tr *http.Transport) {
				tr.TLSHandshakeTimeout = sc.ConnectTimeout
				tr.ResponseHeaderTimeout = sc.Timeout
			})),
	}
	var endpoint string
	disableHTTPS := false
	for k, vs := range q {
		v := vs[0]
		flag := func() (bool, error) {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return false, fmt.Errorf("%s=%q: want true or false", k, v)
			}
			return b, nil
		}
		switch k {
		case "region":
			opts = append(opts, config.WithRegion(v))
		case "endpoint":
			endpoint = v
		case "profile":
			opts = append(opts, config.WithSharedConfigProfile(v))
		case "anonymous", "dualstack", "fips", "use_path_style", "s3ForcePathStyle", "disable_https":
			b, err := flag()
			if err != nil {
				return nil, err
			}
			switch {
			case k == "anonymous" && b:
				opts = append(opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
			case k == "dualstack" && b:
				opts = append(opts, config.WithUseDualStackEndpoint(aws.DualStackEndpointStateEnabled))
			case k == "fips" && b:
				opts = append(opts, config.WithUseFIPSEndpoint(aws.FIPSEndpointStateEnabled))
			case k == "use_path_style" || k == "s3ForcePathStyle":
				pathStyle, pathStyleSet = b, true
			case k == "disable_https":
				disableHTTPS = b
			}
		case "ssetype", "kmskeyid", "accelerate":
			// for writes, or not for a custom endpoint; reads ignore them
		default:
			return nil, fmt.Errorf("unknown query parameter %q", k)
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if endpoint != "" {
		cfg.BaseEndpoint = aws.String(endpoint)
	}
	if cfg.BaseEndpoint != nil && !pathStyleSet && ipOrLocalhost(*cfg.BaseEndpoint) {
		pathStyle = true
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = pathStyle
		// Only the store's requests: a credentials service's are not
		// the store answering.
		o.HTTPClient = &waitClient{next: o.HTTPClient, cfg: sc}
		// A GET answered whole (200, no checksum) drew a warning on
		// standard error; the reader checks sizes and ETags itself.
		o.DisableLogOutputChecksumValidationSkipped = true
		if disableHTTPS {
			o.EndpointOptions.DisableHTTPS = true
		}
	})
	return &s3Bucket{client: client, name: u.Host}, nil
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

// sdkMaxBackoff is the SDK retryer's longest wait between attempts (its
// default); tests shorten it.
var sdkMaxBackoff = 20 * time.Second

// metadataRetries gives a listing or a stat of an object the attempts
// reads get through their own retries (see rangeReader): with the SDK's
// three, a few seconds of 503s at a run's start ended it.
func metadataRetries(o *s3.Options) { o.RetryMaxAttempts = 10 }

// s3Bucket is one S3 bucket.
type s3Bucket struct {
	client *s3.Client
	name   string
}

func (b *s3Bucket) list(ctx context.Context, prefix string, recursive bool) ([]listed, error) {
	in := &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: &prefix}
	if !recursive {
		in.Delimiter = aws.String("/")
	}
	var out []listed
	for p := s3.NewListObjectsV2Paginator(b.client, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx, metadataRetries)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, listed{key: aws.ToString(o.Key), size: aws.ToInt64(o.Size), etag: aws.ToString(o.ETag)})
		}
	}
	return out, nil
}

func (b *s3Bucket) stat(ctx context.Context, key string) (listed, error) {
	h, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.name, Key: &key}, metadataRetries)
	if err != nil {
		return listed{}, err
	}
	return listed{key: key, size: aws.ToInt64(h.ContentLength), etag: aws.ToString(h.ETag)}, nil
}

func (b *s3Bucket) openRange(ctx context.Context, key string, off, n int64, etag string) (io.ReadCloser, int64, error) {
	in := &s3.GetObjectInput{Bucket: &b.name, Key: &key, Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+n-1))}
	if etag != "" {
		in.IfMatch = &etag
	}
	out, err := b.client.GetObject(ctx, in)
	if err != nil {
		return nil, 0, err
	}
	size := aws.ToInt64(out.ContentLength)
	// Content-Range: bytes first-last/size. Without one, the answer is
	// the whole object (200): a server or a proxy may ignore Range.
	first := int64(0)
	cr := aws.ToString(out.ContentRange)
	if cr != "" {
		span, total, _ := strings.Cut(strings.TrimPrefix(cr, "bytes "), "/")
		if s, err := strconv.ParseInt(total, 10, 64); err == nil {
			size = s
		}
		from, _, _ := strings.Cut(span, "-")
		var err error
		if first, err = strconv.ParseInt(from, 10, 64); err != nil {
			first = -1
		}
	}
	switch {
	case first == off:
	case cr == "":
		// The whole object: the bytes before off are not the ones
		// asked for, and are skipped.
		if _, err := io.CopyN(io.Discard, out.Body, off); err != nil {
			out.Body.Close()
			return nil, 0, fmt.Errorf("skipping to byte %d of an answer that ignored the range asked for: %w", off, err)
		}
	default:
		out.Body.Close()
		return nil, 0, fmt.Errorf("asked for bytes from %d, the store answered %q", off, cr)
	}
	return out.Body, size, nil
}

func (*s3Bucket) kind(err error) errKind {
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	status := 0
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	switch {
	case silent(err):
		return errSilent
	case refused(err):
		return errRefused
	case credentialsFailed(err):
		// Before the status: a 403 or 404 here is the metadata
		// service's, not the bucket's.
		return errCredentials
	case code == "NoSuchBucket" || code == "NoSuchKey" || code == "NotFound" || status == 404:
		return errNotFound
	case code == "AccessDenied" || status == 403:
		return errDenied
	case code == "PreconditionFailed" || status == 412:
		return errChanged
	case code == "RequestTimeout":
		// S3's 400 for a request body or response too slow: retryable,
		// as the SDK's own retryer takes it.
		return errOther
	case code == "InvalidRange" || status == 416 || status == 400 || status == 301:
		return errInvalid
	}
	return errOther
}

// refused reports whether err is a connection the store's host refused:
// nothing listens at the endpoint.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// credentialsFailed reports whether err is the SDK failing to get
// credentials before it sent the request: an operation of another
// service (the instance metadata service, STS, SSO) inside the S3
// operation's error.
func credentialsFailed(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if op, ok := e.(*smithy.OperationError); ok && op.Service() != "S3" {
			return true
		}
	}
	return false
}
