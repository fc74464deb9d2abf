// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "widgetd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WidgetCore", targets: ["WidgetCore"]),
        .library(name: "WidgetStages", targets: ["WidgetStages"]),
        .library(name: "WidgetRuntime", targets: ["WidgetRuntime"]),
        .library(name: "WidgetCommands", targets: ["WidgetCommands"]),
        .library(name: "WidgetTesting", targets: ["WidgetTesting"]),
        .executable(name: "widgetd", targets: ["widgetd"]),
    ],
    targets: [
        // The value type, JSON, JSONPath, templates, the stage protocols, the registry, the definition
        // model and the pipeline. Pure: no file or network I/O.
        .target(name: "WidgetCore"),
        // The built-in stages: HTTP and file sources, parsers, transforms, timelines.
        .target(name: "WidgetStages", dependencies: ["WidgetCore"]),
        // Loading definitions from a folder, the refresh runner, the daemon, the snapshot store, logs.
        .target(name: "WidgetRuntime", dependencies: ["WidgetCore", "WidgetStages"]),
        // The command line (`run`, `validate`, `list`, …, its argument parser) and the process around the
        // daemon: signals, systemd notifications. A plugin package's executable calls it with its stages.
        .target(name: "WidgetCommands", dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime"]),
        // Helpers for plugin authors: a stage harness, stage conformance checks, an in-process HTTP test
        // server, an in-memory fetcher, a manual clock.
        .target(name: "WidgetTesting", dependencies: ["WidgetCore", "WidgetStages"]),
        .executableTarget(
            name: "widgetd", dependencies: ["WidgetStages", "WidgetRuntime", "WidgetCommands"], plugins: ["BuildInfoPlugin"]),
        // Records the git commit the executable is built from, for `widgetd --version`.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool(), path: "Sources/BuildInfoPlugin"),
        // `swift run -c release widgetd-bench [SUITE]`: an executable of this package only, not a product.
        .executableTarget(
            name: "widgetd-bench",
            dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime", "WidgetTesting"],
            path: "Sources/WidgetBenchmarks",
            // twitter.json, canada.json and citm_catalog.json, the standard JSON benchmark documents.
            resources: [.copy("Documents")]
        ),
        // The libFuzzer entry (`.ci/fuzz`): an executable of this package only, not a product.
        .executableTarget(name: "widgetd-fuzz", dependencies: ["WidgetCore", "WidgetStages"], path: "Sources/WidgetFuzz"),
        // What this package's own tests share and plugin authors do not need (comparisons with reference
        // implementations such as Python packages): not a product.
        .target(name: "WidgetTestSupport", path: "Tests/WidgetTestSupport"),
        .testTarget(name: "WidgetCoreTests", dependencies: ["WidgetCore", "WidgetTesting", "WidgetTestSupport"]),
        .testTarget(name: "WidgetStagesTests", dependencies: ["WidgetCore", "WidgetStages", "WidgetTesting", "WidgetTestSupport"]),
        .testTarget(name: "WidgetTestingTests", dependencies: ["WidgetCore", "WidgetStages", "WidgetTesting"]),
        .testTarget(
            name: "WidgetRuntimeTests",
            dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime", "WidgetTesting", "WidgetTestSupport"]
        ),
        // The command line's tests; most run the built `widgetd` executable.
        .testTarget(
            name: "WidgetCommandsTests",
            dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime", "WidgetCommands", "WidgetTesting", "WidgetTestSupport"]
        ),
    ]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
