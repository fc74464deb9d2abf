import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` before each build of the target it is applied to: the git commit the
/// package was built from (`widgetd --version` prints it), or `nil` when the source is not a git
/// checkout or git is not installed.
///
/// The file is replaced only when its text changes, so a build with nothing new recompiles nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated", directoryHint: .isDirectory)
        let script = """
            set -u
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
            case "$commit" in
              *[!0-9a-f]*|"") value=nil ;;
              *) value="\\"$commit\\"" ;;
            esac
            mkdir -p "$2"
            file="$2/BuildCommit.swift"
            printf '/// The git commit this program was built from, if known.\\nlet buildCommit: String? = %s\\n' "$value" > "$file.new"
            if cmp -s "$file.new" "$file"; then rm -f "$file.new"; else mv "$file.new" "$file"; fi
            """
        return [
            .prebuildCommand(
                displayName: "Recording the build's git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output
            )
        ]
    }
}
