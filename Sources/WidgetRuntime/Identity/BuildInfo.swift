/// What `widgetd --version` prints: the release, the git commit of the build and the Swift compiler.
///
/// The release is the package's; the commit comes from the executable (the `widgetd` target records it
/// at build time), so a program of your own that runs `WidgetCommandLine` can pass its own.
///
/// ```
/// widgetd 0.4.0
/// commit: 6d157a9c1f2e
/// swift: 6.3 (Linux x86_64)
/// ```
public struct BuildInfo: Sendable, Equatable {
    /// The release of widgetd (semantic versioning).
    public static let release = "0.4.0"

    /// The git commit the program was built from, if known.
    public var commit: String?

    /// Build information with `commit`; `--version` shows "unknown" for a nil commit.
    public init(commit: String? = nil) {
        self.commit = commit
    }

    /// The Swift compiler that built this program, major and minor version.
    public static let compiler: String = {
        #if compiler(>=7.0)
        return "7.0 or later"
        #elseif compiler(>=6.5)
        return "6.5"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "before 6.2"
        #endif
    }()

    /// The operating system and processor the program was built for.
    public static let platform: String = {
        #if os(Linux)
        let system = "Linux"
        #elseif os(macOS)
        let system = "macOS"
        #else
        let system = "an unknown system"
        #endif
        #if arch(x86_64)
        return "\(system) x86_64"
        #elseif arch(arm64)
        return "\(system) arm64"
        #else
        return system
        #endif
    }()

    /// The text of `widgetd --version`: three lines.
    public var description: String {
        """
        widgetd \(BuildInfo.release)
        commit: \(commit ?? "unknown")
        swift: \(BuildInfo.compiler) (\(BuildInfo.platform))
        """
    }
}
