import Foundation
import WidgetTestSupport
import WidgetTesting

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

    /// Python's jsonschema; under `CI=true` the suite runs, and fails, without it.
    static let oracle = ExternalOracle.pythonModule("jsonschema")

    /// One line per problem (`FILE: PATH: MESSAGE`), or `FILE: ok`; paths are relative to the package root.
    static func validate(_ files: [String], schema: URL) async throws -> [String] {
        let result = try await Widgetd.run(program: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, schema.path] + files)
        guard result.status == 0 else {
            throw ToolError(description: "python3 jsonschema failed with status \(result.status): \(result.stderr)")
        }
        return result.stdoutLines
    }
}
