import Foundation
import Synchronization
import Testing
import WidgetObjectStorage
import WidgetStages
import WidgetTesting

/// The client against a scripted server: requests, retries, error answers. (Against a real server:
/// `SeaweedFSTests`.)
struct S3ClientTests {
    static let credentials = S3Credentials(accessKeyID: "AKIDTESTKEY", secretAccessKey: "very-secret-key", sessionToken: "session-tok")

    static func client(_ server: TestHTTPServer, clock: RecordingClock = RecordingClock(), pageSize: Int = 1000) -> S3Client {
        S3Client(
            endpoint: URL(string: "http://127.0.0.1:\(server.port)")!, region: "us-east-1", bucket: "widgets", credentials: credentials,
            httpClient: HTTPClient(), clock: clock, limits: .init(timeout: 30, maxObjectBytes: 1 << 20, pageSize: pageSize))
    }

    static func errorBody(_ code: String, _ message: String) -> Data {
        Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
    }

    @Test func putSendsTheHeadersTheConditionAndASignature() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("PUT", "/widgets/*") { _ in TestHTTPResponse(status: 200, headers: ["ETag": "\"abc123\""]) }
        ])
        let client = Self.client(server)
        let upload = ObjectUpload(data: Data("{}".utf8), contentType: "application/json", cacheControl: "public, max-age=60")
        let etag = try await client.put(".state/a b.json", upload, condition: .ifMatch("old"))
        #expect(etag == "abc123")
        let request = try #require(server.requests.first)
        #expect(request.target == "/widgets/.state/a%20b.json")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Cache-Control"] == "public, max-age=60")
        #expect(request.headers["If-Match"] == "\"old\"")
        #expect(request.headers["X-Amz-Security-Token"] == "session-tok")
        #expect(request.headers["X-Amz-Content-SHA256"] == SHA256.hexDigest(of: Data("{}".utf8)))
        let authorization = try #require(request.headers["Authorization"])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDTESTKEY/"))
        #expect(
            authorization.contains(
                "SignedHeaders=cache-control;content-type;host;if-match;x-amz-content-sha256;x-amz-date;x-amz-security-token"))
        #expect(request.body == Data("{}".utf8))

        _ = try await client.put("lease.json", upload, condition: .ifNoneMatch)
        #expect(server.requests.last?.headers["If-None-Match"] == "*")
    }

    @Test func getReadsTheObjectAndANoSuchKeyIsNil() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/widgets/news.json") { _ in
                TestHTTPResponse(
                    status: 200,
                    headers: [
                        "ETag": "\"e1\"", "Content-Type": "application/json", "Cache-Control": "no-store",
                        "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT",
                    ], body: Data("[1]".utf8))
            },
            TestHTTPRoute("GET", "/widgets/*") { _ in
                TestHTTPResponse(status: 404, body: Self.errorBody("NoSuchKey", "The specified key does not exist."))
            },
        ])
        let client = Self.client(server)
        let object = try #require(try await client.get("news.json"))
        #expect(object.data == Data("[1]".utf8))
        #expect(object.etag == "e1")
        #expect(object.contentType == "application/json")
        #expect(object.cacheControl == "no-store")
        #expect(object.lastModified == Date(timeIntervalSince1970: 784_111_777))
        #expect(try await client.get("missing.json") == nil)
    }

    @Test func aMissingBucketIsNoSuchBucketNotAMissingKey() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute(nil, "*") { _ in
                TestHTTPResponse(status: 404, body: Self.errorBody("NoSuchBucket", "The specified bucket does not exist"))
            }
        ])
        let client = Self.client(server)
        do throws(ObjectStoreError) {
            _ = try await client.get("news.json")
            Issue.record("a get in a missing bucket succeeded")
        } catch {
            #expect(error.kind == .noSuchBucket)
        }
        do throws(ObjectStoreError) {
            try await client.delete("news.json", condition: .none)
            Issue.record("a delete in a missing bucket succeeded")
        } catch {
            #expect(error.kind == .noSuchBucket)
            #expect(error.code == "NoSuchBucket")
            #expect(error.message.contains("create the bucket"))
        }
    }

    @Test func deletingAMissingKeySucceeds() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("DELETE", "/widgets/*") { _ in TestHTTPResponse(status: 404, body: Self.errorBody("NoSuchKey", "no")) }
        ])
        try await Self.client(server).delete("gone.json", condition: .none)
    }

    @Test func aSlowDownIsRetriedAfterTheDelayTheStoreAsks() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("PUT", "/widgets/*") { _ in
                let attempt = count.withLock { count in
                    count += 1
                    return count
                }
                return attempt == 1
                    ? TestHTTPResponse(
                        status: 503, headers: ["Retry-After": "2"], body: Self.errorBody("SlowDown", "Please reduce your request rate."))
                    : TestHTTPResponse(status: 200, headers: ["ETag": "\"ok\""])
            }
        ])
        let clock = RecordingClock()
        let etag = try await Self.client(server, clock: clock).put(
            "a.json", ObjectUpload(data: Data(), contentType: "text/plain"), condition: .none)
        #expect(etag == "ok")
        #expect(count.withLock { $0 } == 2)
        #expect(clock.delays.count == 1)
        #expect(clock.delays[0] > 1.5 && clock.delays[0] <= 2.1)
    }

    @Test func serverErrorsAreTriedThreeTimesWithBackoffThenThrown() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute(nil, "*") { _ in
                TestHTTPResponse(status: 500, body: Self.errorBody("InternalError", "We encountered an internal error."))
            }
        ])
        let clock = RecordingClock()
        do throws(ObjectStoreError) {
            _ = try await Self.client(server, clock: clock).get("a.json")
            Issue.record("a 500 did not throw")
        } catch {
            #expect(error.kind == .server(status: 500))
            #expect(error.message.contains("3 attempts"))
        }
        #expect(server.requests.count == 3)
        #expect(clock.delays.count == 2)
        // Full jitter under ceilings of 0.2 s then 0.4 s (the recorded delay is a deadline minus now).
        #expect(clock.delays[0] <= 0.21 && clock.delays[1] <= 0.41)
    }

    @Test func aRetryAfterLongerThanTheCallWaitsIsThrownAtOnce() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute(nil, "*") { _ in TestHTTPResponse(status: 429, headers: ["Retry-After": "120"], body: Data()) }
        ])
        let clock = RecordingClock()
        do throws(ObjectStoreError) {
            _ = try await Self.client(server, clock: clock).get("a.json")
            Issue.record("a 429 did not throw")
        } catch {
            #expect(error.kind == .throttled(retryAfter: 120))
            #expect(error.isTransient)
        }
        #expect(server.requests.count == 1)
        #expect(clock.delays.isEmpty)
    }

    @Test func aDeniedRequestIsNotRetriedAndItsMessageHoldsNoCredential() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute(nil, "*") { _ in
                TestHTTPResponse(
                    status: 403,
                    body: Self.errorBody("SignatureDoesNotMatch", "The signature for AKIDTESTKEY with very-secret-key does not match"))
            }
        ])
        do throws(ObjectStoreError) {
            _ = try await Self.client(server).put("a.json", ObjectUpload(data: Data(), contentType: "text/plain"), condition: .none)
            Issue.record("a 403 did not throw")
        } catch {
            #expect(error.kind == .denied)
            #expect(error.code == "SignatureDoesNotMatch")
            #expect(error.message.contains("AWS_SECRET_ACCESS_KEY"))
            #expect(!error.message.contains("very-secret-key") && !error.message.contains("AKIDTESTKEY"))
            #expect(!"\(error)".contains("session-tok"))
        }
        #expect(server.requests.count == 1)
    }

    @Test func aPreconditionFailureIsItsOwnKind() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute(nil, "*") { _ in
                TestHTTPResponse(
                    status: 412, body: Self.errorBody("PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
                )
            }
        ])
        do throws(ObjectStoreError) {
            _ = try await Self.client(server).put(
                "lease.json", ObjectUpload(data: Data(), contentType: "application/json"), condition: .ifNoneMatch)
            Issue.record("a 412 did not throw")
        } catch {
            #expect(error.kind == .preconditionFailed)
            #expect(!error.isTransient)
        }
        #expect(server.requests.count == 1)
    }

    @Test func noAnswerIsUnreachableAfterThreeAttempts() async throws {
        let closed = try #require(ClosedPort.make())
        let clock = RecordingClock()
        let client = S3Client(
            endpoint: URL(string: "http://127.0.0.1:\(closed.port)")!, region: "us-east-1", bucket: "widgets",
            credentials: Self.credentials,
            httpClient: HTTPClient(), clock: clock)
        do throws(ObjectStoreError) {
            _ = try await client.list(prefix: "")
            Issue.record("a closed port answered")
        } catch {
            #expect(error.kind == .unreachable)
            #expect(error.isTransient)
            #expect(error.message.contains("3 attempts"))
        }
        #expect(clock.delays.count == 2)
        withExtendedLifetime(closed) {}
    }

    @Test func listingFollowsContinuationTokens() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/widgets") { request in
                #expect(request.query("list-type") == "2")
                #expect(request.query("prefix") == "p/")
                let second = request.query("continuation-token") == "next/1"
                let body =
                    second
                    ? "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>p/c.json</Key><ETag>&quot;3&quot;</ETag><Size>3</Size></Contents></ListBucketResult>"
                    : "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>widgets</Name><IsTruncated>true</IsTruncated>"
                        + "<NextContinuationToken>next/1</NextContinuationToken>"
                        + "<Contents><Key>p/b.json</Key><ETag>\"2\"</ETag><Size>22</Size></Contents>"
                        + "<Contents><Key>p/a &amp; b.json</Key><ETag>\"1\"</ETag><Size>1</Size></Contents></ListBucketResult>"
                return TestHTTPResponse(status: 200, headers: ["Content-Type": "application/xml"], body: Data(body.utf8))
            }
        ])
        let listed = try await Self.client(server, pageSize: 2).list(prefix: "p/")
        #expect(
            listed == [
                ListedObject(key: "p/a & b.json", etag: "1", size: 1), ListedObject(key: "p/b.json", etag: "2", size: 22),
                ListedObject(key: "p/c.json", etag: "3", size: 3),
            ])
        #expect(server.requests.count == 2)
        #expect(server.requests.first?.query("max-keys") == "2")
    }
}
