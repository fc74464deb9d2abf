#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// libcurl's easy and multi interfaces, loaded at run time from the `libcurl.so.4` that
/// FoundationNetworking itself links, so widgetd needs neither libcurl's headers nor a package.
///
/// ``HTTPClient`` drives transfers through it on Linux because FoundationNetworking cannot stop one:
/// after `cancel()` its libcurl handle keeps reading and every piece is queued for the delegate, so a
/// server that sends without end grows the process by hundreds of megabytes a second. Here the body
/// callback refuses the first byte past the cap, which makes libcurl close the connection at once, and a
/// cancelled transfer is woken and dropped at once.
///
/// The symbols are looked up by name and called with the C ABI. `curl_easy_setopt` (and
/// `curl_multi_setopt`) is variadic in C; it is called through fixed prototypes (a `long`, a pointer),
/// which on the System V x86-64 and AArch64 procedure-call standards pass those arguments exactly as
/// the variadic call would. The option and error numbers are libcurl's stable ABI (`curl/curl.h`).
final class CurlLibrary: @unchecked Sendable {
    // The loaded library, if any. `nil` when `libcurl.so.4` cannot be opened: the client then uses
    // URLSession.
    static let shared: CurlLibrary? = CurlLibrary()

    typealias Handle = OpaquePointer
    typealias WriteCallback =
        @convention(c) (
            UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?
        ) -> Int

    let easyInit: @convention(c) () -> Handle?
    let easyCleanup: @convention(c) (Handle?) -> Void
    let easyReset: @convention(c) (Handle?) -> Void
    let setoptLong: @convention(c) (Handle?, Int32, Int) -> Int32
    let setoptPointer: @convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32
    let easyStrerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
    let slistAppend: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    let slistFreeAll: @convention(c) (OpaquePointer?) -> Void
    let multiInit: @convention(c) () -> Handle?
    let multiCleanup: @convention(c) (Handle?) -> Int32
    let multiSetoptLong: @convention(c) (Handle?, Int32, Int) -> Int32
    let multiAddHandle: @convention(c) (Handle?, Handle?) -> Int32
    let multiRemoveHandle: @convention(c) (Handle?, Handle?) -> Int32
    let multiPerform: @convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> Int32
    let multiPoll:
        @convention(c) (Handle?, UnsafeMutableRawPointer?, UInt32, Int32, UnsafeMutablePointer<Int32>?)
            -> Int32
    let multiWakeup: @convention(c) (Handle?) -> Int32
    let multiInfoRead: @convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?

    private init?() {
        guard let library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let address = dlsym(library, name) else { return nil }
            return unsafeBitCast(address, to: type)
        }
        guard
            let globalInit = symbol("curl_global_init", as: (@convention(c) (Int) -> Int32).self),
            let easyInit = symbol("curl_easy_init", as: (@convention(c) () -> Handle?).self),
            let easyCleanup = symbol("curl_easy_cleanup", as: (@convention(c) (Handle?) -> Void).self),
            let easyReset = symbol("curl_easy_reset", as: (@convention(c) (Handle?) -> Void).self),
            let setoptLong = symbol(
                "curl_easy_setopt", as: (@convention(c) (Handle?, Int32, Int) -> Int32).self),
            let setoptPointer = symbol(
                "curl_easy_setopt", as: (@convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32).self),
            let easyStrerror = symbol(
                "curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
            let slistAppend = symbol(
                "curl_slist_append",
                as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?).self),
            let slistFreeAll = symbol(
                "curl_slist_free_all", as: (@convention(c) (OpaquePointer?) -> Void).self),
            let multiInit = symbol("curl_multi_init", as: (@convention(c) () -> Handle?).self),
            let multiCleanup = symbol("curl_multi_cleanup", as: (@convention(c) (Handle?) -> Int32).self),
            let multiSetoptLong = symbol(
                "curl_multi_setopt", as: (@convention(c) (Handle?, Int32, Int) -> Int32).self),
            let multiAddHandle = symbol(
                "curl_multi_add_handle", as: (@convention(c) (Handle?, Handle?) -> Int32).self),
            let multiRemoveHandle = symbol(
                "curl_multi_remove_handle", as: (@convention(c) (Handle?, Handle?) -> Int32).self),
            let multiPerform = symbol(
                "curl_multi_perform",
                as: (@convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> Int32).self),
            // curl_multi_poll and curl_multi_wakeup: libcurl 7.66 and 7.68 (2019).
            let multiPoll = symbol(
                "curl_multi_poll",
                as: (@convention(c) (
                    Handle?, UnsafeMutableRawPointer?, UInt32, Int32, UnsafeMutablePointer<Int32>?
                ) -> Int32).self),
            let multiWakeup = symbol("curl_multi_wakeup", as: (@convention(c) (Handle?) -> Int32).self),
            let multiInfoRead = symbol(
                "curl_multi_info_read",
                as: (@convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?).self)
        else { return nil }
        // CURL_GLOBAL_ALL; thread-safe since libcurl 7.84, and called once here before any transfer.
        guard globalInit(3) == 0 else { return nil }
        self.easyInit = easyInit
        self.easyCleanup = easyCleanup
        self.easyReset = easyReset
        self.setoptLong = setoptLong
        self.setoptPointer = setoptPointer
        self.easyStrerror = easyStrerror
        self.slistAppend = slistAppend
        self.slistFreeAll = slistFreeAll
        self.multiInit = multiInit
        self.multiCleanup = multiCleanup
        self.multiSetoptLong = multiSetoptLong
        self.multiAddHandle = multiAddHandle
        self.multiRemoveHandle = multiRemoveHandle
        self.multiPerform = multiPerform
        self.multiPoll = multiPoll
        self.multiWakeup = multiWakeup
        self.multiInfoRead = multiInfoRead
    }

    /// Sets a string option; libcurl copies the text.
    @discardableResult
    func set(_ handle: Handle, _ option: Option, _ text: String) -> Int32 {
        text.withCString { setoptPointer(handle, option.rawValue, UnsafeRawPointer($0)) }
    }

    @discardableResult
    func set(_ handle: Handle, _ option: Option, _ number: Int) -> Int32 {
        setoptLong(handle, option.rawValue, number)
    }

    @discardableResult
    func set(_ handle: Handle, _ option: Option, pointer: UnsafeRawPointer?) -> Int32 {
        setoptPointer(handle, option.rawValue, pointer)
    }

    /// libcurl's words for `code` ("Couldn't connect to server").
    func describe(_ code: Int32) -> String {
        easyStrerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// The `CURLoption` numbers used (`curl/curl.h`).
    enum Option: Int32 {
        case writeData = 10001
        case url = 10002
        case errorBuffer = 10010
        case writeFunction = 20011
        case userAgent = 10018
        case lowSpeedLimit = 19
        case lowSpeedTime = 20
        case httpHeader = 10023
        case headerData = 10029
        case customRequest = 10036
        case noProgress = 43
        case noBody = 44
        case followLocation = 52
        case postFieldSize = 60
        case noSignal = 99
        case acceptEncoding = 10102
        case headerFunction = 20079
        case timeoutMilliseconds = 155
        case connectTimeoutMilliseconds = 156
        case protocols = 181
        case httpGet = 80
        case copyPostFields = 10165
        /// The client certificate file (`CURLOPT_SSLCERT`).
        case sslCertificate = 10025
        /// The CA file trusted instead of the built-in one (`CURLOPT_CAINFO`).
        case caInfo = 10065
        /// The client key file (`CURLOPT_SSLKEY`).
        case sslKey = 10087
        /// The folder of hashed CA certificates (`CURLOPT_CAPATH`); cleared with a CA file, so that the
        /// file alone is trusted.
        case caPath = 10097
        /// Whether the peer's certificate chain is verified (`CURLOPT_SSL_VERIFYPEER`), 1 or 0.
        case sslVerifyPeer = 64
        /// Whether the peer's name is checked against its certificate (`CURLOPT_SSL_VERIFYHOST`), 2 or 0.
        case sslVerifyHost = 81
    }

    /// The `CURLMoption` numbers used (`curl/multi.h`).
    enum MultiOption: Int32 {
        /// How many idle connections the multi handle keeps for reuse.
        case maximumConnections = 6
    }

    /// The `CURLcode` numbers told apart (`curl/curl.h`).
    enum Code {
        static let unsupportedProtocol: Int32 = 1
        static let couldNotResolveProxy: Int32 = 5
        static let couldNotResolveHost: Int32 = 6
        static let couldNotConnect: Int32 = 7
        static let weirdServerReply: Int32 = 8
        static let partialFile: Int32 = 18
        static let writeError: Int32 = 23
        static let outOfMemory: Int32 = 27
        static let operationTimedOut: Int32 = 28
        static let abortedByCallback: Int32 = 42
        static let gotNothing: Int32 = 52
        static let sendError: Int32 = 55
        static let receiveError: Int32 = 56
        static let badContentEncoding: Int32 = 61
        static let filesizeExceeded: Int32 = 63
        static let sslConnectError: Int32 = 35
        static let sslCertificateProblem: Int32 = 58
        static let peerFailedVerification: Int32 = 60
        static let sslCACertificateBadFile: Int32 = 77
        /// TLS failures: connect error, engine, certificate, cipher, peer verification, CA file, and so on.
        static let secureConnection: Set<Int32> = [35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98]
    }
}
#endif
