// MARK: - Files the stages need

extension DefinitionReader.Session {
    /// Looks up every file the pipeline's stages need (see ``LocalFileDependent``) with the reader's
    /// ``DefinitionReader/localFiles`` check, when it has one, and reports each that cannot be used at the
    /// option that names it. Relative paths start at the definition's folder, as when the widget refreshes.
    mutating func checkLocalFiles(of pipeline: WidgetPipeline) {
        guard let check = reader.localFiles else { return }
        let definition = pipeline.definition
        var stages: [(stage: any Stage, spec: StageSpec)] = []
        for (input, built) in zip(definition.inputs, pipeline.inputs) {
            stages += [(built.fetcher, input.source), (built.parser, input.parser)]
        }
        stages += [(pipeline.fetcher, definition.source), (pipeline.parser, definition.parser)]
        stages += zip(pipeline.transformers, definition.transforms).map { ($0, $1) }
        stages.append((pipeline.timeline, definition.timeline.stage))
        let folder = DefinitionReader.folder(of: file)
        for (stage, spec) in stages {
            guard let dependent = stage as? any LocalFileDependent else { continue }
            for needed in dependent.localFiles {
                if let problem = check.problem(with: needed, definitionFolder: folder) {
                    report(spec.path.appending(needed.option), problem)
                }
            }
        }
    }
}

extension DefinitionReader {
    /// The folder of a definition file as the user named it (`widgets.d` for `widgets.d/news.json`), where
    /// its relative paths start; empty for a file in the current folder.
    static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }
}
