import Foundation

/// The widgets' due times, as a binary min-heap: the daemon's loop asks for the earliest due time and
/// for the widgets due now without looking at the others, so a wave costs O(k log n) for k due widgets
/// among n.
///
/// Setting a widget's due time pushes a new heap entry; the entry it replaces stays in the heap until it
/// reaches the top, where it is recognised as outdated (it no longer matches ``subscript(_:)``) and
/// dropped. The heap is rebuilt when outdated entries outnumber current ones.
///
/// ```swift
/// var queue = DueQueue()
/// queue["news"] = now.addingTimeInterval(900)
/// queue.earliest        // now + 900
/// queue.popDue(at: now) // []
/// ```
struct DueQueue {
    private struct Entry: Comparable {
        var date: Date
        var id: String

        static func < (left: Entry, right: Entry) -> Bool { left.date < right.date }
    }

    private var times: [String: Date] = [:]
    private var heap = MinHeap<Entry>()

    /// The due time of widget `id`, or `nil` when it has none (`never`, or unknown).
    subscript(id: String) -> Date? {
        get { times[id] }
        set {
            times[id] = newValue
            if let newValue { heap.push(Entry(date: newValue, id: id)) }
            if heap.count > 2 * times.count + 64 { heap.replace(with: times.map { Entry(date: $0.value, id: $0.key) }) }
        }
    }

    /// The earliest due time of any widget.
    var earliest: Date? {
        mutating get {
            dropOutdatedFirst()
            return heap.first?.date
        }
    }

    /// The widgets due at `now` (due time not after it), each once, sorted by id. Their due times stay
    /// set until they are given new ones (see ``requeue(_:)``).
    mutating func popDue(at now: Date) -> [String] {
        var due: Set<String> = []
        while true {
            dropOutdatedFirst()
            guard let first = heap.first, first.date <= now else { break }
            due.insert(first.id)
            heap.removeFirst()
        }
        return due.sorted()
    }

    /// Puts widgets popped by ``popDue(at:)`` back in the queue at the due times they kept, so that
    /// those left waiting stay as late as they are.
    mutating func requeue(_ ids: [String]) {
        for id in ids {
            if let date = times[id] { heap.push(Entry(date: date, id: id)) }
        }
    }

    /// Drops the entries at the top whose widget has another due time since.
    private mutating func dropOutdatedFirst() {
        while let first = heap.first, times[first.id] != first.date { heap.removeFirst() }
    }
}
