print("widgetd")
