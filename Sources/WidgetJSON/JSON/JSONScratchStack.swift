/// A growable stack the JSON reader keeps the elements of the arrays and objects it has open on.
///
/// Elements are pushed as they are read; when a container closes, its elements move (without retain or
/// release) into an array of exactly the right size. One stack serves the whole document, so reading
/// allocates once per container instead of once per growth step.
struct JSONScratchStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// Pushes copies of `elements`.
    @inline(__always)
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress else { return }
        while count + elements.count > capacity { grow() }
        (base + count).initialize(from: source, count: elements.count)
        count += elements.count
    }

    /// Calls `body` with the elements from `start` to the top.
    @inline(__always)
    func withElements<Result>(from start: Int, _ body: (UnsafeBufferPointer<Element>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base + start, count: count - start))
    }

    /// Moves the elements from `start` to the top into a new array, leaving `start` elements.
    @inline(__always)
    mutating func popArray(from start: Int) -> [Element] {
        let moved = count - start
        if moved == 0 { return [] }
        // `reserveCapacity` and `append` are specialised for `Element`; `Array(unsafeUninitializedCapacity:)`
        // goes through an unspecialised runtime path that looks up type metadata on every call.
        var array: [Element] = []
        array.reserveCapacity(moved)
        for index in start..<count { array.append((base + index).move()) }
        count = start
        return array
    }

    /// Removes and destroys the elements from `start` to the top.
    mutating func pop(from start: Int) {
        (base + start).deinitialize(count: count - start)
        count = start
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
