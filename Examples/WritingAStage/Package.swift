// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "WidgetdRound",
    platforms: [.macOS(.v15)],
    dependencies: [
        // widgetd, two folders up; in a package of your own, .package(url: "<widgetd's git URL>", from: "0.4.0").
        .package(name: "widgetd", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "widgetd-round",
            dependencies: [
                .product(name: "WidgetJSON", package: "widgetd"),
                .product(name: "WidgetCore", package: "widgetd"),
                .product(name: "WidgetStages", package: "widgetd"),
                .product(name: "WidgetRuntime", package: "widgetd"),
                .product(name: "WidgetCommands", package: "widgetd"),
            ]
        ),
        .testTarget(
            name: "RoundTransformTests",
            dependencies: [
                "widgetd-round",
                .product(name: "WidgetJSON", package: "widgetd"),
                .product(name: "WidgetCore", package: "widgetd"),
                .product(name: "WidgetTesting", package: "widgetd"),
            ]
        ),
    ]
)
