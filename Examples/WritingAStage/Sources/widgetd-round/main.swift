// Sources/widgetd-round/main.swift
import Foundation
import WidgetCommands
import WidgetCore
import WidgetRuntime
import WidgetStages

var builder = StageRegistry.Builder.builtIn()
builder.register(RoundTransform.self)
let environment = CommandEnvironment(registry: try builder.build())
exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
