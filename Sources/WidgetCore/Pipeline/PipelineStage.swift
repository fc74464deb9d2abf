public import WidgetJSON

/// A stage of a widget's pipeline, as its errors name it (`source: …`, `transforms[1] (map): …`) and as its
/// fetch cache is keyed (`source`, `inputs.NAME`).
public enum PipelineStage: Sendable, Hashable, CustomStringConvertible {
    /// The source's fetch: `source`.
    case source
    /// The source's `when` test: `source.when`.
    case sourceTest
    /// The parser of the source's payload: `parser`.
    case parser
    /// A named input's fetch: `inputs.NAME`.
    case input(String)
    /// A named input's `when` test: `inputs.NAME.when`.
    case inputTest(String)
    /// A named input's parser: `inputs.NAME.parser`.
    case inputParser(String)
    /// A transform, by its place in `transforms` and its type: `transforms[1] (map)`.
    case transform(index: Int, type: String)
    /// The timeline, with `relevance`, `url` and `limit`: `timeline`.
    case timeline

    public var description: String {
        switch self {
        case .source: "source"
        case .sourceTest: "source.when"
        case .parser: "parser"
        case .input(let name): "inputs.\(name)"
        case .inputTest(let name): "inputs.\(name).when"
        case .inputParser(let name): "inputs.\(name).parser"
        case .transform(let index, let type): "transforms[\(index)] (\(type))"
        case .timeline: "timeline"
        }
    }

    /// Where the stage's options are in a definition: `source`, `inputs.NAME`, `transforms[1]`.
    public var definitionPath: ValuePath {
        switch self {
        case .source: ValuePath.root.appending("source")
        case .sourceTest: ValuePath.root.appending("source").appending("when")
        case .parser: ValuePath.root.appending("parser")
        case .input(let name): ValuePath.root.appending("inputs").appending(name)
        case .inputTest(let name): ValuePath.root.appending("inputs").appending(name).appending("when")
        case .inputParser(let name): ValuePath.root.appending("inputs").appending(name).appending("parser")
        case .transform(let index, _): ValuePath.root.appending("transforms").appending(index: index)
        case .timeline: ValuePath.root.appending("timeline")
        }
    }

    /// The path of the template an `ExpressionError` of this stage comes from, when the stage is one
    /// template: a `when` test.
    var templatePath: ValuePath? {
        switch self {
        case .sourceTest, .inputTest: definitionPath
        default: nil
        }
    }

    /// The stage of a fetch's `when` test.
    var test: PipelineStage {
        switch self {
        case .input(let name): .inputTest(name)
        default: .sourceTest
        }
    }

    /// The stage that parses a fetch's payload.
    var parsing: PipelineStage {
        switch self {
        case .input(let name): .inputParser(name)
        default: .parser
        }
    }
}
