public import Foundation
public import WidgetCore
public import WidgetStages

/// An ``ObjectStore`` on a bucket of an S3-compatible server (AWS S3, MinIO, SeaweedFS, Cloudflare R2,
/// Backblaze B2, Ceph, GCS's S3 API), signed with AWS Signature Version 4 (``SigV4Signer``).
///
/// It speaks the few calls widgetd needs: `PutObject` (with `Content-Type`, `Cache-Control` and a
/// condition, `If-None-Match: *` or `If-Match: "etag"`), `GetObject`, `DeleteObject` (optionally with
/// `If-Match`), `ListObjectsV2` (every page, following continuation tokens) and a start-up check of the
/// bucket and the keys (``checkBucket()``).
///
/// Requests go through the project's `HTTPClient`, with a deadline (``Limits/timeout``) and a cap on
/// what an answer may bring (``Limits/maxObjectBytes``). A call that fails for a reason worth retrying
/// (a 5xx, `SlowDown` or 429, no answer) is tried again up to ``RetryPolicy/maxAttempts`` times in all,
/// after a delay with exponential backoff and full jitter, or the delay the store asked for in
/// `Retry-After`; the waiting goes through the injected clock, so tests wait for nothing.
///
/// Errors name the method, the key, the bucket and the host, the status and the store's `Code` and
/// `Message`; never a credential, a signature or a query.
///
/// ```swift
/// let client = S3Client(
///     endpoint: URL(string: "http://127.0.0.1:8333")!, region: "us-east-1", bucket: "widgets",
///     credentials: S3Credentials(accessKeyID: key, secretAccessKey: secret), httpClient: HTTPClient()
/// )
/// try await client.checkBucket()
/// let etag = try await client.put("news.json", ObjectUpload(data: json, contentType: "application/json"), condition: .none)
/// ```
public struct S3Client: ObjectStore {
    /// How the bucket is named in a request.
    public enum Addressing: Sendable, Hashable {
        /// `https://endpoint/BUCKET/KEY`: what MinIO, SeaweedFS and most self-hosted stores want.
        case path
        /// `https://BUCKET.endpoint/KEY`: what AWS prefers.
        case virtualHosted
    }

    /// When and how often a failed call is tried again.
    public struct RetryPolicy: Sendable, Hashable {
        /// The most attempts a call makes in all (the first included).
        public var maxAttempts: Int
        /// The backoff's first ceiling, in seconds: the delay before attempt `n + 1` is drawn uniformly
        /// from 0 up to `baseDelay × 2ⁿ⁻¹` (full jitter), at most ``maxDelay``.
        public var baseDelay: Double
        /// The largest backoff ceiling, in seconds.
        public var maxDelay: Double
        /// The longest `Retry-After` waited for within a call, in seconds; a store that asks for more gets
        /// the error back at once (``ObjectStoreError/Kind/throttled(retryAfter:)`` says how long), so the
        /// caller's queue waits instead of the call.
        public var longestRetryAfter: Double

        /// 3 attempts, backoff ceilings of 0.2 s then 0.4 s (at most 5 s), `Retry-After` up to 10 s.
        public static let standard = RetryPolicy(maxAttempts: 3, baseDelay: 0.2, maxDelay: 5, longestRetryAfter: 10)

        /// A policy; see each property.
        public init(maxAttempts: Int, baseDelay: Double, maxDelay: Double, longestRetryAfter: Double) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.longestRetryAfter = longestRetryAfter
        }

        /// The ceiling of the delay after the `failures`-th failed attempt: `baseDelay × 2^(failures−1)`, at
        /// most `maxDelay`.
        public func ceiling(afterFailures failures: Int) -> Double {
            min(maxDelay, baseDelay * pow(2, Double(max(0, failures - 1))))
        }
    }

    /// The limits of each request.
    public struct Limits: Sendable, Hashable {
        /// The deadline of one attempt, in seconds.
        public var timeout: TimeInterval
        /// The largest object `get` reads (and listing page), in bytes.
        public var maxObjectBytes: Int
        /// The most keys asked for per listing page (`max-keys`); S3 sends at most 1,000.
        public var pageSize: Int

        /// 30 s, 64 MiB, 1,000 keys.
        public static let standard = Limits(timeout: 30, maxObjectBytes: 64 << 20, pageSize: 1000)

        /// Limits; see each property.
        public init(timeout: TimeInterval, maxObjectBytes: Int, pageSize: Int) {
            self.timeout = timeout
            self.maxObjectBytes = maxObjectBytes
            self.pageSize = max(1, pageSize)
        }
    }

    /// The server's base URL (`http://127.0.0.1:8333`, `https://s3.eu-west-1.amazonaws.com`).
    public let endpoint: URL
    /// The region the signature names (`us-east-1`).
    public let region: String
    /// The bucket.
    public let bucket: String
    /// How the bucket is named in requests.
    public let addressing: Addressing
    /// When failed calls are tried again.
    public let retry: RetryPolicy
    /// The limits of each request.
    public let limits: Limits

    let signer: SigV4Signer
    let http: HTTPClient
    let clock: any WidgetClock
    /// `scheme://host[:port]` of requests, the bucket's host name included when virtual-hosted.
    let origin: String
    /// The `Host` header requests carry (signed).
    let hostHeader: String
    /// The path every key is under: the endpoint's own path, and `/BUCKET` with path-style addressing.
    let basePath: String

    /// A client for `bucket` at `endpoint`.
    ///
    /// - Parameters:
    ///   - endpoint: The server's base URL, `http` or `https`; a path in it prefixes every request's.
    ///   - region: The region signatures name; most self-hosted stores take any (`us-east-1`).
    ///   - bucket: The bucket's name.
    ///   - credentials: The keys that sign.
    ///   - addressing: Path style (`endpoint/BUCKET/KEY`, the default) or virtual-hosted (`BUCKET.endpoint/KEY`).
    ///   - httpClient: The client that carries the requests (shared with the rest of the daemon).
    ///   - clock: What retries wait with (tests pass one that returns at once).
    ///   - retry: When failed calls are tried again.
    ///   - limits: The deadline and byte cap of each request, and the listing page size.
    public init(
        endpoint: URL, region: String, bucket: String, credentials: S3Credentials, addressing: Addressing = .path,
        httpClient: HTTPClient, clock: any WidgetClock = SystemClock(), retry: RetryPolicy = .standard, limits: Limits = .standard
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.addressing = addressing
        self.retry = retry
        self.limits = limits
        signer = SigV4Signer(credentials: credentials, region: region, service: "s3")
        http = httpClient
        self.clock = clock

        let scheme = endpoint.scheme?.lowercased() ?? "https"
        var host = endpoint.host ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        if addressing == .virtualHosted { host = "\(bucket).\(host)" }
        let defaultPort = scheme == "https" ? 443 : 80
        let authority = endpoint.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        origin = "\(scheme)://\(authority)"
        hostHeader = authority
        var path = endpoint.path
        while path.hasSuffix("/") { path.removeLast() }
        basePath = addressing == .path ? "\(path)/\(bucket)" : path
    }

    /// A client for the bucket `configuration` names, with its endpoint, region, addressing and credentials.
    public init(
        configuration: S3Configuration, httpClient: HTTPClient, clock: any WidgetClock = SystemClock(), retry: RetryPolicy = .standard,
        limits: Limits = .standard
    ) {
        self.init(
            endpoint: configuration.endpoint, region: configuration.region, bucket: configuration.bucket,
            credentials: configuration.credentials, addressing: configuration.addressing, httpClient: httpClient, clock: clock,
            retry: retry, limits: limits)
    }

    // MARK: - ObjectStore

    public func put(_ key: String, _ object: ObjectUpload, condition: WriteCondition) async throws(ObjectStoreError) -> String {
        var headers: HTTPHeaders = ["Content-Type": object.contentType]
        if let cacheControl = object.cacheControl { headers.add(name: "Cache-Control", value: cacheControl) }
        Self.add(condition, to: &headers)
        let response = try await send("PUT", key: key, headers: headers, body: object.data)
        return Self.unquote(response.headers["ETag"] ?? "")
    }

    public func get(_ key: String) async throws(ObjectStoreError) -> StoredObject? {
        let response = try await send("GET", key: key, accepting: [404], maxBytes: limits.maxObjectBytes)
        if response.status == 404 { return nil }
        return StoredObject(
            data: response.body, etag: Self.unquote(response.headers["ETag"] ?? ""), contentType: response.headers["Content-Type"],
            lastModified: response.headers["Last-Modified"].flatMap(Self.httpDate), cacheControl: response.headers["Cache-Control"])
    }

    public func delete(_ key: String, condition: WriteCondition) async throws(ObjectStoreError) {
        var headers = HTTPHeaders()
        Self.add(condition, to: &headers)
        _ = try await send("DELETE", key: key, headers: headers, accepting: [404])
    }

    public func list(prefix: String) async throws(ObjectStoreError) -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(limits.pageSize))]
            if let token { query.append(("continuation-token", token)) }
            let response = try await send("GET", key: nil, query: query, maxBytes: limits.maxObjectBytes, what: "list \"\(prefix)\"")
            guard let page = S3XML.listing(response.body) else {
                throw ObjectStoreError(
                    .other(status: response.status),
                    message: "listing \"\(prefix)\" in bucket \(bucket) at \(hostHeader): the answer was not a ListBucketResult")
            }
            objects += page.objects
            token = page.isTruncated ? page.nextToken : nil
            if page.isTruncated && (token ?? "").isEmpty {
                throw ObjectStoreError(
                    .other(status: response.status),
                    message:
                        "listing \"\(prefix)\" in bucket \(bucket) at \(hostHeader): a truncated page came without a continuation token")
            }
        } while token != nil
        return objects.sorted { $0.key < $1.key }
    }

    /// Checks at start-up that the bucket exists and the keys may read it: a listing of one key (rather
    /// than `HEAD`, whose answer has no body and so no `Code` to show).
    ///
    /// - Throws: ``ObjectStoreError`` with ``ObjectStoreError/Kind/denied`` for a wrong access key or
    ///   secret or no permission (its `code` says which: `InvalidAccessKeyId`, `SignatureDoesNotMatch`,
    ///   `AccessDenied`), ``ObjectStoreError/Kind/noSuchBucket``, or ``ObjectStoreError/Kind/unreachable``.
    public func checkBucket() async throws(ObjectStoreError) {
        _ = try await send(
            "GET", key: nil, query: [("list-type", "2"), ("max-keys", "1")], maxBytes: limits.maxObjectBytes,
            what: "check the bucket")
    }

    // MARK: - Requests

    /// Sends one call, tried again as ``retry`` says, and returns the answer: a 2xx, or a status in
    /// `accepting` other than `NoSuchBucket`.
    func send(
        _ method: String, key: String?, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:], body: Data? = nil,
        accepting: Set<Int> = [], maxBytes: Int = 1 << 20, what: String? = nil
    ) async throws(ObjectStoreError) -> HTTPResponse {
        let path = key.map { basePath + "/" + $0 } ?? (basePath.isEmpty ? "/" : basePath)
        let queryString = SigV4Signer.canonicalQuery(query)
        let url = URL(string: origin + SigV4Signer.encodePath(path) + (queryString.isEmpty ? "" : "?" + queryString))!
        let payloadHash = body.map { SHA256.hexDigest(of: $0) } ?? SigV4Signer.emptyPayloadHash
        let action = what ?? "\(method) \"\(key ?? "")\""
        var failures = 0
        while true {
            let signature = signer.sign(
                method: method, path: path, query: query, headers: headers, host: hostHeader, payloadHash: payloadHash, date: Date())
            var sent = headers
            for field in signature.headers { sent.add(name: field.name, value: field.value) }
            let request = HTTPRequest(
                url: url, method: method, headers: sent, body: body, timeout: limits.timeout, maxBytes: maxBytes, maxRedirects: 0)
            let error: ObjectStoreError
            switch await exchange(request, action: action, accepting: accepting) {
            case .success(let response): return response
            case .failure(let failure): error = failure
            }
            if Task.isCancelled {
                throw ObjectStoreError(.unreachable, message: "\(action) in bucket \(bucket) at \(hostHeader) was cancelled")
            }
            failures += 1
            guard error.isTransient, failures < retry.maxAttempts else {
                guard failures > 1 else { throw error }
                throw ObjectStoreError(error.kind, code: error.code, message: error.message + " (\(failures) attempts)")
            }
            var delay = Double.random(in: 0...retry.ceiling(afterFailures: failures))
            if case .throttled(let retryAfter?) = error.kind {
                guard retryAfter <= retry.longestRetryAfter else {
                    throw ObjectStoreError(error.kind, code: error.code, message: error.message + " (Retry-After: \(Int(retryAfter)) s)")
                }
                delay = max(delay, retryAfter)
            }
            do {
                try await clock.sleep(until: clock.now().addingTimeInterval(delay))
            } catch {
                throw ObjectStoreError(.unreachable, message: "\(action) in bucket \(bucket) at \(hostHeader) was cancelled")
            }
        }
    }

    /// One attempt: the answer when it is a 2xx or a status in `accepting` (but `NoSuchBucket`), else the error.
    func exchange(_ request: HTTPRequest, action: String, accepting: Set<Int>) async -> Result<HTTPResponse, ObjectStoreError> {
        let response: HTTPResponse
        do {
            response = try await http.send(request)
        } catch {
            let kind: ObjectStoreError.Kind =
                switch error.kind {
                case .timedOut, .connectionFailed, .truncated, .invalidResponse, .cancelled: .unreachable
                case .tooLarge, .tooManyRedirects, .invalidRequest: .other(status: 0)
                }
            return .failure(ObjectStoreError(kind, message: "\(action) in bucket \(bucket): \(error.message)"))
        }
        if response.isSuccess { return .success(response) }
        let details = S3XML.error(response.body)
        if accepting.contains(response.status) && details?.code != "NoSuchBucket" { return .success(response) }
        return .failure(failure(action, status: response.status, details: details, retryAfter: response.retryAfter(now: Date())))
    }

    /// The error for an answer with `status` and the store's `details`.
    func failure(_ action: String, status: Int, details: S3XML.ErrorDetails?, retryAfter: Double?) -> ObjectStoreError {
        let code = details?.code
        let kind: ObjectStoreError.Kind =
            switch status {
            case 412: .preconditionFailed
            case 409 where code == "ConditionalRequestConflict": .preconditionFailed
            case 401, 403: .denied
            case 404 where code == "NoSuchBucket" || code == nil && action == "check the bucket": .noSuchBucket
            case 429: .throttled(retryAfter: retryAfter)
            case _ where code == "SlowDown": .throttled(retryAfter: retryAfter)
            case 500...599: .server(status: status)
            default: .other(status: status)
            }
        var message = "\(action) in bucket \(bucket) at \(hostHeader): HTTP \(status)"
        if let code { message += " \(code)" }
        if let text = details?.message, !text.isEmpty { message += ": \(redacted(text))" }
        switch kind {
        case .denied where code == "SignatureDoesNotMatch":
            message += "; check the secret access key (AWS_SECRET_ACCESS_KEY) and the region"
        case .denied where code == "InvalidAccessKeyId":
            message += "; check the access key ID (AWS_ACCESS_KEY_ID)"
        case .denied where code == "RequestTimeTooSkewed":
            message += "; set this machine's clock right (NTP)"
        case .denied:
            message += "; check the keys and that they may read and write this bucket"
        case .noSuchBucket:
            message += "; create the bucket or correct its name in --out s3://BUCKET/PREFIX"
        default: break
        }
        return ObjectStoreError(kind, code: code.map(redacted), message: message)
    }

    /// `text` with every credential in it replaced by `[redacted]` (a store's message may quote one).
    func redacted(_ text: String) -> String {
        var text = text
        let credentials = signer.credentials
        for secret in [credentials.secretAccessKey, credentials.sessionToken ?? "", credentials.accessKeyID] where secret.count >= 4 {
            text = text.replacingOccurrences(of: secret, with: "[redacted]")
        }
        return text
    }

    static func add(_ condition: WriteCondition, to headers: inout HTTPHeaders) {
        switch condition {
        case .none: break
        case .ifNoneMatch: headers.add(name: "If-None-Match", value: "*")
        case .ifMatch(let etag): headers.add(name: "If-Match", value: "\"\(unquote(etag))\"")
        }
    }

    /// An entity tag without its quotes (and weak mark).
    static func unquote(_ etag: String) -> String {
        var text = etag.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        return text
    }

    /// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`), as `Last-Modified` carries it.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
