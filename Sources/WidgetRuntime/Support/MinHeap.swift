/// A binary min-heap: the least element first, pushes and removals in O(log n).
///
/// Both the daemon's due times (`DueQueue`) and the refreshes' deadline timers
/// (`DeadlineTimers`) keep one, leaving outdated entries in it until they reach the top and rebuilding it
/// with ``filter(_:)`` when those outnumber the current ones.
struct MinHeap<Element: Comparable> {
    /// The elements, in heap order (the least first).
    private(set) var elements: [Element] = []

    /// The least element, if any.
    var first: Element? { elements.first }

    /// How many elements the heap holds.
    var count: Int { elements.count }

    /// Adds `element`.
    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the least element, if any.
    mutating func removeFirst() {
        guard !elements.isEmpty else { return }
        elements.swapAt(0, elements.count - 1)
        elements.removeLast()
        siftDown(from: 0)
    }

    /// Keeps only the elements `keep` accepts.
    mutating func filter(_ keep: (Element) -> Bool) {
        replace(with: elements.filter(keep))
    }

    /// Replaces the elements with `newElements`, in any order.
    mutating func replace(with newElements: [Element]) {
        elements = newElements
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { return }
            var least = left
            if left + 1 < elements.count, elements[left + 1] < elements[left] { least = left + 1 }
            guard elements[least] < elements[parent] else { return }
            elements.swapAt(least, parent)
            parent = least
        }
    }
}
