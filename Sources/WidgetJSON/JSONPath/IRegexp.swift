import Synchronization

/// An I-Regexp (RFC 9485), for the `match` and `search` functions, matched in linear time.
///
/// The pattern is read by the I-Regexp grammar and compiled to a small program that runs on every
/// candidate position at once (a Thompson automaton simulated as in Pike's VM): the time is bounded by
/// the length of the text times the size of the program, whatever the pattern, so `(a+)+$` on a long
/// string from a hostile server costs microseconds rather than an exponential backtrack. As the JSONPath
/// Compliance Test Suite expects, `.` matches any character but `\n` and `\r`, and `^` and `$` anchor at the
/// start and end of the string. Invalid patterns give `nil`, which the functions treat as "no match".
package struct IRegexp: Sendable {
    /// The deepest nesting of groups accepted.
    static let maximumDepth = 64

    /// The largest bound accepted in a `{n,m}` repetition.
    static let maximumRepetition = 1000

    /// The most instructions a compiled pattern may have (repetitions multiply a group's size).
    static let maximumProgramSize = 20_000

    /// The most steps (instructions run, summed over positions) one match may take; past it the match
    /// gives up and counts as no match. A 1 MB string against a 100-instruction pattern stays well
    /// under it.
    static let stepBudget = 200_000_000

    private let program: [Instruction]

    /// Compiles `pattern`; `nil` when it is not a valid I-Regexp or its program would be too large.
    ///
    /// - Parameter anchored: whether the whole string must match (`match`) rather than a substring
    ///   (`search`).
    package init?(_ pattern: String, anchored: Bool) {
        var parser = Parser(Array(pattern.unicodeScalars))
        guard let node = parser.parse() else { return nil }
        var compiler = Compiler()
        let body = anchored ? Node.sequence([.start, node, .end]) : node
        guard compiler.emit(body) else { return nil }
        compiler.program.append(.match)
        program = compiler.program
    }

    private struct CacheKey: Hashable {
        var pattern: String
        var anchored: Bool
    }

    /// Patterns that come from the document (`match(@.name, $.pattern)`) are compiled once each, not once per
    /// node; the cache is emptied when it holds ``cacheLimit`` patterns.
    private static let cache = Mutex<[CacheKey: IRegexp?]>([:])

    /// The most patterns kept by ``cached(_:anchored:)``.
    static let cacheLimit = 256

    /// Like ``init(_:anchored:)``, but reuses an earlier compilation of the same pattern.
    static func cached(_ pattern: String, anchored: Bool) -> IRegexp? {
        let key = CacheKey(pattern: pattern, anchored: anchored)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let compiled = IRegexp(pattern, anchored: anchored)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll() }
            entries[key] = compiled
        }
        return compiled
    }

    /// Whether the pattern matches `text` (all of it for `match`, a part of it for `search`). A match
    /// that passes ``stepBudget``, or whose task is cancelled, gives up: no match.
    package func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        var steps = 0
        for position in 0...scalars.count {
            // A search may begin anywhere; an anchored pattern begins with `.start`, which only position 0 passes.
            add(0, at: position, count: scalars.count, to: &current)
            if current.contains(program.count - 1) { return true }
            guard position < scalars.count else { break }
            let scalar = scalars[position]
            next.clear()
            for pc in current.members {
                if case .scalar(let set) = program[pc], set.contains(scalar) {
                    add(pc + 1, at: position + 1, count: scalars.count, to: &next)
                }
            }
            steps += current.members.count + 1
            if steps > IRegexp.stepBudget { return false }
            if position & 0xFFFF == 0xFFFF, Task.isCancelled { return false }
            swap(&current, &next)
        }
        return false
    }

    /// Adds the thread at `pc` and every thread it reaches without reading a character.
    private func add(_ pc: Int, at position: Int, count: Int, to list: inout ThreadList) {
        var stack = [pc]
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .start:
                if position == 0 { stack.append(pc + 1) }
            case .end:
                if position == count { stack.append(pc + 1) }
            case .scalar, .match:
                break
            }
        }
    }

    // MARK: - Program

    private enum Instruction: Sendable {
        /// Reads one character in the set.
        case scalar(ScalarSet)
        case jump(Int)
        /// Goes on at both.
        case split(Int, Int)
        /// Passes at the start of the string only.
        case start
        /// Passes at the end of the string only.
        case end
        case match
    }

    /// The set of program counters of the threads alive at one position, in the order added (a sparse set).
    private struct ThreadList {
        var members: [Int] = []
        private var present: [Bool]

        init(capacity: Int) {
            present = Array(repeating: false, count: capacity)
            members.reserveCapacity(capacity)
        }

        /// Adds `pc`; false when it was there.
        mutating func insert(_ pc: Int) -> Bool {
            if present[pc] { return false }
            present[pc] = true
            members.append(pc)
            return true
        }

        func contains(_ pc: Int) -> Bool { present[pc] }

        mutating func clear() {
            for pc in members { present[pc] = false }
            members.removeAll(keepingCapacity: true)
        }
    }

    /// What one character position may hold.
    struct ScalarSet: Sendable {
        enum Item: Sendable {
            case range(UInt32, UInt32)
            case category(String, negated: Bool)
        }

        var items: [Item]
        var negated = false

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            var found = false
            for item in items {
                switch item {
                case .range(let low, let high):
                    found = scalar.value >= low && scalar.value <= high
                case .category(let name, let negatedCategory):
                    found = IRegexp.category(of: scalar).hasPrefix(name) != negatedCategory
                }
                if found { break }
            }
            return found != negated
        }

        static func single(_ scalar: Unicode.Scalar) -> ScalarSet {
            ScalarSet(items: [.range(scalar.value, scalar.value)])
        }

        /// `.`: any character but `\n` and `\r`.
        static let dot = ScalarSet(items: [.range(0x0A, 0x0A), .range(0x0D, 0x0D)], negated: true)
    }

    /// The two-letter Unicode general category of `scalar` (`Lu`, `Nd`, …).
    static func category(of scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter: "Lu"
        case .lowercaseLetter: "Ll"
        case .titlecaseLetter: "Lt"
        case .modifierLetter: "Lm"
        case .otherLetter: "Lo"
        case .nonspacingMark: "Mn"
        case .spacingMark: "Mc"
        case .enclosingMark: "Me"
        case .decimalNumber: "Nd"
        case .letterNumber: "Nl"
        case .otherNumber: "No"
        case .connectorPunctuation: "Pc"
        case .dashPunctuation: "Pd"
        case .openPunctuation: "Ps"
        case .closePunctuation: "Pe"
        case .initialPunctuation: "Pi"
        case .finalPunctuation: "Pf"
        case .otherPunctuation: "Po"
        case .mathSymbol: "Sm"
        case .currencySymbol: "Sc"
        case .modifierSymbol: "Sk"
        case .otherSymbol: "So"
        case .spaceSeparator: "Zs"
        case .lineSeparator: "Zl"
        case .paragraphSeparator: "Zp"
        case .control: "Cc"
        case .format: "Cf"
        case .surrogate: "Cs"
        case .privateUse: "Co"
        case .unassigned: "Cn"
        @unknown default: "Cn"
        }
    }

    // MARK: - Syntax tree

    private indirect enum Node {
        case set(ScalarSet)
        case sequence([Node])
        case alternation([Node])
        case repeated(Node, min: Int, max: Int?)
        case start
        case end
    }

    private struct Compiler {
        var program: [Instruction] = []

        /// Appends `node`'s instructions; false when the program grows past ``IRegexp/maximumProgramSize``.
        mutating func emit(_ node: Node) -> Bool {
            guard program.count <= IRegexp.maximumProgramSize else { return false }
            switch node {
            case .set(let set):
                program.append(.scalar(set))
            case .start:
                program.append(.start)
            case .end:
                program.append(.end)
            case .sequence(let nodes):
                for node in nodes { guard emit(node) else { return false } }
            case .alternation(let branches):
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = program.count
                        program.append(.split(split + 1, -1))
                        guard emit(branch) else { return false }
                        jumps.append(program.count)
                        program.append(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        guard emit(branch) else { return false }
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let body, let min, let max):
                for _ in 0..<min { guard emit(body) else { return false } }
                if let max {
                    // Each optional copy may be skipped: split to the body or past the rest.
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        program.append(.split(program.count + 1, -1))
                        guard emit(body) else { return false }
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let split = program.count
                    program.append(.split(split + 1, -1))
                    guard emit(body) else { return false }
                    program.append(.jump(split))
                    program[split] = .split(split + 1, program.count)
                }
            }
            return program.count <= IRegexp.maximumProgramSize
        }
    }

    // MARK: - Parsing

    /// Reads the I-Regexp grammar of RFC 9485 §5.
    private struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0
        var depth = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func parse() -> Node? {
            guard let node = regexp(), position == scalars.count else { return nil }
            return node
        }

        /// `i-regexp = branch *( "|" branch )`
        mutating func regexp() -> Node? {
            guard let first = branch() else { return nil }
            var branches = [first]
            while current == "|" {
                position += 1
                guard let next = branch() else { return nil }
                branches.append(next)
            }
            return branches.count == 1 ? first : .alternation(branches)
        }

        /// `branch = *piece`; `piece = atom [ quantifier ]`
        mutating func branch() -> Node? {
            var pieces: [Node] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                guard let atom = atom(), let piece = quantified(atom) else { return nil }
                pieces.append(piece)
            }
            return .sequence(pieces)
        }

        mutating func quantified(_ atom: Node) -> Node? {
            guard let scalar = current else { return atom }
            switch scalar {
            case "*":
                position += 1
                return .repeated(atom, min: 0, max: nil)
            case "+":
                position += 1
                return .repeated(atom, min: 1, max: nil)
            case "?":
                position += 1
                return .repeated(atom, min: 0, max: 1)
            case "{":
                position += 1
                guard let low = number() else { return nil }
                var high: Int? = low
                if current == "," {
                    position += 1
                    high = nil
                    if current != "}" {
                        guard let bound = number(), bound >= low else { return nil }
                        high = bound
                    }
                }
                guard current == "}" else { return nil }
                position += 1
                return .repeated(atom, min: low, max: high)
            default:
                return atom
            }
        }

        /// Repetition bounds above the limit are refused (RFC 9485 §8 allows limits).
        mutating func number() -> Int? {
            var text = ""
            while let scalar = current, scalar.value >= 0x30, scalar.value <= 0x39 {
                text.unicodeScalars.append(scalar)
                position += 1
            }
            guard !text.isEmpty, text.count <= 4, let value = Int(text), value <= IRegexp.maximumRepetition else {
                return nil
            }
            return value
        }

        mutating func atom() -> Node? {
            guard let scalar = current else { return nil }
            switch scalar {
            case "(":
                depth += 1
                guard depth <= IRegexp.maximumDepth else { return nil }
                position += 1
                guard let inner = regexp(), current == ")" else { return nil }
                position += 1
                depth -= 1
                return inner
            case ".":
                position += 1
                return .set(.dot)
            case "^":
                // RFC 9485's grammar reads `^` and `$` as plain characters, but the JSONPath Compliance Test
                // Suite (like the regex engines most implementations map to) reads them as anchors.
                position += 1
                return .start
            case "$":
                position += 1
                return .end
            case "[":
                return characterClassExpression()
            case "\\":
                if let category = categoryEscape() { return .set(ScalarSet(items: [category])) }
                guard let literal = singleCharacterEscape() else { return nil }
                return .set(.single(literal))
            case ")", "*", "+", "?", "]", "{", "|", "}":
                return nil
            default:
                position += 1
                return .set(.single(scalar))
            }
        }

        /// `SingleCharEsc`: a backslash and one of `( ) * + - . ? [ \ ] ^ n r t { | }`.
        mutating func singleCharacterEscape() -> Unicode.Scalar? {
            guard current == "\\", position + 1 < scalars.count else { return nil }
            let scalar = scalars[position + 1]
            let literal: Unicode.Scalar
            switch scalar {
            case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}": literal = scalar
            case "n": literal = "\n"
            case "r": literal = "\r"
            case "t": literal = "\t"
            default: return nil
            }
            position += 2
            return literal
        }

        /// `catEsc` / `complEsc`: `\p{Lu}`, `\P{N}`; `nil` (position unchanged) when there is none.
        mutating func categoryEscape() -> ScalarSet.Item? {
            guard current == "\\", position + 2 < scalars.count,
                scalars[position + 1] == "p" || scalars[position + 1] == "P", scalars[position + 2] == "{"
            else { return nil }
            var end = position + 3
            var name = ""
            while end < scalars.count, scalars[end] != "}" {
                name.unicodeScalars.append(scalars[end])
                end += 1
            }
            guard end < scalars.count, Self.categories.contains(name) else { return nil }
            let negated = scalars[position + 1] == "P"
            position = end + 1
            return .category(name, negated: negated)
        }

        static let categories: Set<String> = [
            "L", "Ll", "Lm", "Lo", "Lt", "Lu",
            "M", "Mc", "Me", "Mn",
            "N", "Nd", "Nl", "No",
            "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps",
            "Z", "Zl", "Zp", "Zs",
            "S", "Sc", "Sk", "Sm", "So",
            "C", "Cc", "Cf", "Cn", "Co",
        ]

        /// `charClassExpr = "[" [ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]"`
        mutating func characterClassExpression() -> Node? {
            position += 1  // "["
            var set = ScalarSet(items: [])
            if current == "^" {
                position += 1
                set.negated = true
            }
            if current == "-" {
                position += 1
                set.items.append(.range(0x2D, 0x2D))
            }
            while true {
                guard let scalar = current else { return nil }
                if scalar == "]" { break }
                if scalar == "-" {
                    // Only allowed last.
                    guard !set.items.isEmpty, position + 1 < scalars.count, scalars[position + 1] == "]" else { return nil }
                    position += 1
                    set.items.append(.range(0x2D, 0x2D))
                    continue
                }
                if let category = categoryEscape() {
                    set.items.append(category)
                    continue
                }
                guard let low = classCharacter() else { return nil }
                if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    position += 1
                    guard let high = classCharacter(), low.value <= high.value else { return nil }
                    set.items.append(.range(low.value, high.value))
                } else {
                    set.items.append(.range(low.value, low.value))
                }
            }
            guard !set.items.isEmpty else { return nil }
            position += 1  // "]"
            return .set(set)
        }

        /// `CCchar`: any character but `-`, `[`, `\`, `]`, or a single-character escape.
        mutating func classCharacter() -> Unicode.Scalar? {
            guard let scalar = current else { return nil }
            switch scalar {
            case "\\": return singleCharacterEscape()
            case "-", "[", "]": return nil
            default:
                position += 1
                return scalar
            }
        }
    }
}
