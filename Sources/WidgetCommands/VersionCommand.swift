import WidgetCore
import WidgetRuntime

/// `widgetd version` (also `widgetd --version`): the release, the build's commit and the Swift compiler.
public struct VersionCommand: WidgetCommand {
    public static let name = "version"
    public static let summary = "Print widgetd's version, the commit it was built from and the Swift version."
    public static let help = """
        Usage: widgetd version    (or: widgetd --version)

        Prints three lines: the release (widgetd 0.4.0), the git commit the program was built from
        ("unknown" when it was built outside a git checkout) and the Swift compiler and platform.
        """

    public init(arguments: inout Arguments) throws(UsageError) {}

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        environment.print(environment.build.description)
        return 0
    }
}
