#if os(Linux)
import Foundation
import Synchronization

/// libcurl handles kept between transfers, with the connections they keep open, so that requests to a
/// host reuse a connection rather than each opening one (and making a multi handle, its wake-up socket
/// pair and an easy handle with its buffers, then freeing them).
///
/// A transfer takes a pair (a multi handle and the easy handle it drives) and gives it back when it
/// ends; one pair serves one transfer at a time, on whichever thread runs it, as libcurl allows. A pair
/// given back has its options reset (`curl_easy_reset`), so nothing of one request (its URL, headers,
/// body, callbacks) carries over to the next; what stays is libcurl's cache: each multi handle keeps at
/// most ``connectionsKept`` idle connections, and a connection is reused only for the same host, port
/// and TLS settings. A connection the server closed meanwhile is noticed and replaced by libcurl.
///
/// At most ``pairsKept`` pairs wait between transfers; more are freed. ``closeIdle()`` frees those
/// waiting, with their connections: the daemon calls it when a wave of refreshes is over, so no socket
/// or buffer stays open between waves (servers close idle connections within a minute or two anyway).
final class CurlHandles: Sendable {
    /// A multi handle and the easy handle it drives.
    struct Pair: @unchecked Sendable {
        let multi: CurlLibrary.Handle
        let easy: CurlLibrary.Handle
    }

    /// The pairs kept between transfers; more than the default six connections a host.
    static let pairsKept = 8
    /// The idle connections each multi handle keeps.
    static let connectionsKept = 2

    /// The library the handles come from.
    let curl: CurlLibrary
    private let idle = Mutex<[Pair]>([])

    init(curl: CurlLibrary) {
        self.curl = curl
    }

    /// A pair for one transfer: one kept from an earlier transfer, or new; `nil` when libcurl has no
    /// memory for one.
    func take() -> Pair? {
        if let kept = idle.withLock({ $0.popLast() }) { return kept }
        guard let multi = curl.multiInit() else { return nil }
        guard let easy = curl.easyInit() else {
            _ = curl.multiCleanup(multi)
            return nil
        }
        _ = curl.multiSetoptLong(multi, CurlLibrary.MultiOption.maximumConnections.rawValue, CurlHandles.connectionsKept)
        return Pair(multi: multi, easy: easy)
    }

    /// Takes back a pair whose transfer ended and was removed from its multi handle: its options are
    /// reset and it is kept for the next transfer, or freed when enough are kept.
    func giveBack(_ pair: Pair) {
        curl.easyReset(pair.easy)
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < CurlHandles.pairsKept else { return false }
            idle.append(pair)
            return true
        }
        if !kept { free(pair) }
    }

    /// Frees the pairs waiting between transfers, closing their idle connections; returns how many.
    @discardableResult
    func closeIdle() -> Int {
        let pairs = idle.withLock { idle -> [Pair] in
            defer { idle.removeAll() }
            return idle
        }
        pairs.forEach(free)
        return pairs.count
    }

    private func free(_ pair: Pair) {
        curl.easyCleanup(pair.easy)
        _ = curl.multiCleanup(pair.multi)
    }
}
#endif
