import Foundation

/// Runs Python's `jsonschema` (draft 2020-12) over files.
enum PythonJSONSchema {
    static let script = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1], encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        for path in sys.argv[2:]:
            document = json.load(open(path, encoding="utf-8"))
            errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
            for error in errors:
                where = "$" + "".join("." + str(part) for part in error.absolute_path)
                print(f"{path}: {where}: {error.message}")
            if not errors:
                print(f"{path}: ok")
        """

    /// Whether `python3 -c "import jsonschema"` works here.
    static let isAvailable: Bool = (try? python(["-c", "import jsonschema"]).status) == 0

    /// One line per problem (`FILE: PATH: MESSAGE`), or `FILE: ok`; paths are relative to the package root.
    static func validate(_ files: [String], schema: URL) async throws -> [String] {
        let result = try await Widgetd.run(program: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, schema.path] + files)
        guard result.status == 0 else {
            throw ToolError(description: "python3 jsonschema failed with status \(result.status): \(result.stderr)")
        }
        return result.stdoutLines
    }

    /// Runs python3 once, at start, to decide whether the suite runs.
    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = Widgetd.packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
