public import Foundation

/// Writes ``WidgetValue``s as JSON text, numbers exactly as they are held and object members in order.
///
/// ```swift
/// let data = JSONWriter.data(["a": 1], style: .pretty)
/// ```
public enum JSONWriter {
    /// How the text is laid out.
    public enum Style: Sendable {
        /// No whitespace: `{"a":[1,2]}`.
        case compact
        /// Two-space indentation, one member or element a line, `"key": value`.
        case pretty
    }

    /// The value as UTF-8 JSON text.
    public static func data(_ value: WidgetValue, style: Style = .compact) -> Data {
        Data(bytes(value, style: style))
    }

    /// The value as JSON text.
    public static func string(_ value: WidgetValue, style: Style = .compact) -> String {
        String(decoding: bytes(value, style: style), as: UTF8.self)
    }

    /// The value as UTF-8 JSON text.
    public static func bytes(_ value: WidgetValue, style: Style = .compact) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, pretty: style == .pretty, indent: 0)
        return output
    }

    /// Appends `string` as a JSON string literal, quotes included.
    public static func appendString(_ string: String, into output: inout [UInt8]) {
        output.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: output.append(contentsOf: [0x5C, 0x22])
            case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: output.append(contentsOf: [0x5C, 0x72])
            case 0x09: output.append(contentsOf: [0x5C, 0x74])
            case 0x08: output.append(contentsOf: [0x5C, 0x62])
            case 0x0C: output.append(contentsOf: [0x5C, 0x66])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }

    private static func newline(_ output: inout [UInt8], indent: Int) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static func write(_ value: WidgetValue, into output: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            output.append(contentsOf: number.text.utf8)
        case .string(let string):
            appendString(string, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            if elements.isEmpty {
                output.append(UInt8(ascii: "]"))
                return
            }
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { newline(&output, indent: indent + 1) }
                write(element, into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&output, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            if object.isEmpty {
                output.append(UInt8(ascii: "}"))
                return
            }
            var first = true
            for (key, member) in object {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                if pretty { newline(&output, indent: indent + 1) }
                appendString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(0x20) }
                write(member, into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&output, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }
}

extension WidgetValue: CustomStringConvertible {
    /// The value as compact JSON.
    public var description: String { JSONWriter.string(self) }
}
