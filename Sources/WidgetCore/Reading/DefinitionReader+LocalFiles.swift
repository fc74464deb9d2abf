import WidgetJSON

// MARK: - Files the stages need

extension DefinitionReader.Session {
    /// Looks up every file the pipeline's stages need (see ``LocalFileDependent``) with the reader's
    /// ``DefinitionReader/localFiles`` check, when it has one, and reports each that cannot be used at the
    /// option that names it. Relative paths start at the definition's folder, as when the widget refreshes.
    /// A file that can be used but should not be as it is (a key others may read) draws a warning, and so
    /// does each caution of a ``CautionedStage`` (`"tls": {"verify": false}`).
    mutating func checkLocalFiles(of pipeline: WidgetPipeline) {
        guard let check = reader.localFiles else { return }
        let folder = DefinitionReader.folder(of: file)
        // Stage by stage, in the pipeline's order; each stage is checked where it is, not copied.
        func checkStage(_ stage: any Stage, _ spec: StageSpec, _ kind: StageKind) {
            // The registry that made the stage knows whether its type has files or cautions to look up:
            // the cast, which searches the type's conformances, is left for those that have.
            let entry = reader.registry.entry(kind, named: spec.typeName)
            if entry?.hasCautions != false, let cautioned = stage as? any CautionedStage {
                for caution in cautioned.cautions { warn(spec.path.appending(caution.option), caution.message) }
            }
            if entry?.needsLocalFiles == false { return }
            guard let dependent = stage as? any LocalFileDependent else { return }
            for needed in dependent.localFiles {
                if let problem = check.problem(with: needed, definitionFolder: folder) {
                    report(spec.path.appending(needed.option), problem)
                } else if let warning = check.warning(about: needed, definitionFolder: folder) {
                    warn(spec.path.appending(needed.option), warning)
                }
            }
        }
        // The definition once, not a copy of it for each part asked for.
        let definition = pipeline.definition
        for (input, built) in zip(definition.inputs, pipeline.inputs) {
            checkStage(built.fetcher, input.source, .fetcher)
            checkStage(built.parser, input.parser, .parser)
        }
        checkStage(pipeline.fetcher, definition.source, .fetcher)
        checkStage(pipeline.parser, definition.parser, .parser)
        for (transformer, spec) in zip(pipeline.transformers, definition.transforms) {
            checkStage(transformer, spec, .transformer)
        }
        checkStage(pipeline.timeline, definition.timeline.stage, .timeline)
    }
}

extension DefinitionReader {
    /// The folder of a definition file as the user named it (`widgets.d` for `widgets.d/news.json`), where
    /// its relative paths start; empty for a file in the current folder.
    package static func folder(of file: String) -> String {
        // In ASCII text every character is one byte (or "\r\n"), so the last '/' byte is the last '/'.
        let utf8 = file.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
            return slash == utf8.startIndex ? "/" : String(decoding: utf8[..<slash], as: UTF8.self)
        }
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }
}
