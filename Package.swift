// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "widgetd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WidgetJSON", targets: ["WidgetJSON"]),
        .library(name: "WidgetLiquid", targets: ["WidgetLiquid"]),
        .library(name: "WidgetCore", targets: ["WidgetCore"]),
        .library(name: "WidgetStages", targets: ["WidgetStages"]),
        .library(name: "WidgetObjectStorage", targets: ["WidgetObjectStorage"]),
        .library(name: "WidgetRuntime", targets: ["WidgetRuntime"]),
        .library(name: "WidgetCommands", targets: ["WidgetCommands"]),
        .library(name: "WidgetTesting", targets: ["WidgetTesting"]),
        .executable(name: "widgetd", targets: ["widgetd"]),
    ],
    targets: [
        // The value type (`WidgetValue`), its JSON reader and writer, and JSONPath. Knows nothing of widgets.
        .target(name: "WidgetJSON"),
        // The Liquid template engine and its filters, over `WidgetValue`. Knows nothing of widgets.
        .target(name: "WidgetLiquid", dependencies: ["WidgetJSON"]),
        // The stage protocols, the registry, the definition model, the pipeline and schedules. Pure: no
        // file or network I/O.
        .target(name: "WidgetCore", dependencies: ["WidgetJSON", "WidgetLiquid"]),
        // The built-in stages: HTTP and file sources, parsers, transforms, timelines.
        .target(name: "WidgetStages", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore"]),
        // An S3-compatible object store's client: AWS Signature Version 4, conditional writes, listings.
        .target(name: "WidgetObjectStorage", dependencies: ["WidgetCore", "WidgetStages"]),
        // Loading definitions from a folder, the refresh runner, the daemon, the snapshot store, logs.
        .target(
            name: "WidgetRuntime", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetObjectStorage"]
        ),
        // The command line (`run`, `validate`, `list`, …, its argument parser) and the process around the
        // daemon: signals, systemd notifications. A plugin package's executable calls it with its stages.
        .target(
            name: "WidgetCommands",
            dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetObjectStorage", "WidgetRuntime"]
        ),
        // Helpers for plugin authors: a stage harness, stage conformance checks, an in-process HTTP test
        // server, an in-memory fetcher, a manual clock.
        .target(name: "WidgetTesting", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages"]),
        .executableTarget(
            name: "widgetd", dependencies: ["WidgetStages", "WidgetRuntime", "WidgetCommands"], plugins: ["BuildInfoPlugin"]
        ),
        // Records the git commit the executable is built from, for `widgetd --version`.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool(), path: "Sources/BuildInfoPlugin"),
        // `swift run -c release widgetd-bench [SUITE]`: an executable of this package only, not a product.
        .executableTarget(
            name: "widgetd-bench",
            dependencies: [
                "WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetObjectStorage", "WidgetRuntime", "WidgetTesting",
                "WidgetTestSupport",
            ],
            path: "Sources/WidgetBenchmarks",
            // twitter.json, canada.json and citm_catalog.json, the standard JSON benchmark documents.
            resources: [.copy("Documents")]
        ),
        // The libFuzzer entries (`.ci/fuzz`), one per engine and one for the domain's readers (feeds, dates,
        // headers): executables of this package only, not products. They share the corpus replayer.
        .target(name: "WidgetFuzzSupport", dependencies: ["WidgetJSON"]),
        .executableTarget(name: "widgetd-fuzz-json", dependencies: ["WidgetJSON", "WidgetFuzzSupport"], path: "Sources/WidgetFuzzJSON"),
        .executableTarget(
            name: "widgetd-fuzz-liquid", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetFuzzSupport"], path: "Sources/WidgetFuzzLiquid"
        ),
        .executableTarget(
            name: "widgetd-fuzz",
            dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetFuzzSupport"],
            path: "Sources/WidgetFuzz"
        ),
        // What this package's own tests share and plugin authors do not need (the fixtures' folder, a seeded
        // generator, comparisons with reference implementations such as Python packages): not a product.
        .target(name: "WidgetTestSupport", path: "Tests/WidgetTestSupport"),
        .testTarget(name: "WidgetJSONTests", dependencies: ["WidgetJSON", "WidgetTestSupport"]),
        .testTarget(name: "WidgetLiquidTests", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetTestSupport"]),
        .testTarget(
            name: "WidgetCoreTests", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetTesting", "WidgetTestSupport"]
        ),
        .testTarget(
            name: "WidgetStagesTests",
            dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetTesting", "WidgetTestSupport"]
        ),
        .testTarget(
            name: "WidgetTestingTests", dependencies: ["WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetTesting"]
        ),
        .testTarget(
            name: "WidgetRuntimeTests",
            dependencies: [
                "WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetObjectStorage", "WidgetRuntime", "WidgetTesting",
                "WidgetTestSupport",
            ]
        ),
        .testTarget(
            name: "WidgetObjectStorageTests",
            dependencies: ["WidgetJSON", "WidgetCore", "WidgetStages", "WidgetObjectStorage", "WidgetTesting", "WidgetTestSupport"],
            // The AWS Signature Version 4 test suite's cases (Apache-2.0, with their LICENSE and NOTICE).
            resources: [.copy("Resources")]
        ),
        // The command line's tests; most run the built `widgetd` executable.
        .testTarget(
            name: "WidgetCommandsTests",
            dependencies: [
                "WidgetJSON", "WidgetLiquid", "WidgetCore", "WidgetStages", "WidgetObjectStorage", "WidgetRuntime", "WidgetCommands",
                "WidgetTesting",
                "WidgetTestSupport",
            ]
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
