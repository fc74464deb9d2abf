// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "widgetd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WidgetCore", targets: ["WidgetCore"]),
        .library(name: "WidgetStages", targets: ["WidgetStages"]),
        .library(name: "WidgetRuntime", targets: ["WidgetRuntime"]),
        .library(name: "WidgetTesting", targets: ["WidgetTesting"]),
        .executable(name: "widgetd", targets: ["widgetd"]),
        .executable(name: "widgetd-bench", targets: ["WidgetBenchmarks"]),
        .executable(name: "widgetd-fuzz", targets: ["WidgetFuzz"]),
    ],
    targets: [
        // The value type, JSON, JSONPath, templates, the stage protocols, the registry, the definition
        // model and the pipeline. Pure: no file or network I/O.
        .target(name: "WidgetCore"),
        // The built-in stages: HTTP and file sources, parsers, transforms, timelines.
        .target(name: "WidgetStages", dependencies: ["WidgetCore"]),
        // Loading definitions from a folder, the refresh runner, the snapshot store, the commands.
        .target(name: "WidgetRuntime", dependencies: ["WidgetCore", "WidgetStages"]),
        // Helpers for plugin authors: a stage harness, stage conformance checks, an in-process HTTP test
        // server, an in-memory fetcher, a manual clock.
        .target(name: "WidgetTesting", dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime"]),
        .executableTarget(name: "widgetd", dependencies: ["WidgetRuntime"], plugins: ["BuildInfoPlugin"]),
        // Records the git commit the executable is built from, for `widgetd --version`.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool(), path: "Sources/BuildInfoPlugin"),
        .executableTarget(
            name: "WidgetBenchmarks",
            dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime", "WidgetTesting"],
            // twitter.json, canada.json and citm_catalog.json, the standard JSON benchmark documents.
            resources: [.copy("Documents")]
        ),
        .executableTarget(name: "WidgetFuzz", dependencies: ["WidgetCore", "WidgetStages"]),
        .testTarget(name: "WidgetCoreTests", dependencies: ["WidgetCore", "WidgetTesting"]),
        .testTarget(name: "WidgetStagesTests", dependencies: ["WidgetCore", "WidgetStages", "WidgetTesting"]),
        .testTarget(name: "WidgetTestingTests", dependencies: ["WidgetCore", "WidgetStages", "WidgetTesting"]),
        .testTarget(
            name: "WidgetRuntimeTests",
            dependencies: ["WidgetCore", "WidgetStages", "WidgetRuntime", "WidgetTesting"]
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
