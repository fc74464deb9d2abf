// swift-tools-version:6.2

import PackageDescription

// An example of extending widgetd from your own package: two stages (a Transmission RPC source and a
// runway-performance transform) and an executable that runs the standard command line with them.
let package = Package(
    name: "WidgetdPlugins",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WidgetdPlugins", targets: ["WidgetdPlugins"]),
        .executable(name: "widgetd-plugins", targets: ["widgetd-plugins"]),
    ],
    dependencies: [
        // widgetd itself, two folders up; in your own package write `.package(url: …, from: …)`.
        .package(name: "widgetd", path: "../..")
    ],
    targets: [
        .target(
            name: "WidgetdPlugins",
            dependencies: [
                .product(name: "WidgetJSON", package: "widgetd"),
                .product(name: "WidgetLiquid", package: "widgetd"),
                .product(name: "WidgetCore", package: "widgetd"),
                .product(name: "WidgetStages", package: "widgetd"),
            ]
        ),
        .executableTarget(
            name: "widgetd-plugins",
            dependencies: [
                "WidgetdPlugins",
                .product(name: "WidgetCore", package: "widgetd"),
                .product(name: "WidgetStages", package: "widgetd"),
                .product(name: "WidgetRuntime", package: "widgetd"),
                .product(name: "WidgetCommands", package: "widgetd"),
            ]
        ),
        .testTarget(
            name: "WidgetdPluginsTests",
            dependencies: [
                "WidgetdPlugins",
                .product(name: "WidgetJSON", package: "widgetd"),
                .product(name: "WidgetLiquid", package: "widgetd"),
                .product(name: "WidgetCore", package: "widgetd"),
                .product(name: "WidgetStages", package: "widgetd"),
                .product(name: "WidgetRuntime", package: "widgetd"),
                .product(name: "WidgetCommands", package: "widgetd"),
                .product(name: "WidgetTesting", package: "widgetd"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
