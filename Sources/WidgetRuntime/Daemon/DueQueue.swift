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
    private struct Entry {
        var date: Date
        var id: String
    }

    private var times: [String: Date] = [:]
    private var heap: [Entry] = []

    /// The due time of widget `id`, or `nil` when it has none (`never`, or unknown).
    subscript(id: String) -> Date? {
        get { times[id] }
        set {
            times[id] = newValue
            if let newValue { push(Entry(date: newValue, id: id)) }
            if heap.count > 2 * times.count + 64 { rebuild() }
        }
    }

    /// The earliest due time of any widget.
    var earliest: Date? {
        mutating get {
            dropOutdatedTop()
            return heap.first?.date
        }
    }

    /// The widgets due at `now` (due time not after it), each once, sorted by id. Their due times stay
    /// set until they are given new ones.
    mutating func popDue(at now: Date) -> [String] {
        var due: Set<String> = []
        while true {
            dropOutdatedTop()
            guard let top = heap.first, top.date <= now else { break }
            due.insert(top.id)
            removeTop()
        }
        return due.sorted()
    }

    // MARK: - Heap

    private func isCurrent(_ entry: Entry) -> Bool {
        times[entry.id] == entry.date
    }

    private mutating func dropOutdatedTop() {
        while let top = heap.first, !isCurrent(top) { removeTop() }
    }

    private mutating func rebuild() {
        heap = times.map { Entry(date: $0.value, id: $0.key) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].date < heap[parent].date else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func removeTop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].date < heap[smallest].date { smallest = left }
            if right < heap.count, heap[right].date < heap[smallest].date { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
