package import WidgetJSON

/// The document JSONPath inputs are evaluated against and templates render: every kind of value,
/// nesting, odd keys.
package let fuzzDocument: WidgetValue = {
    let text = #"""
        {"store": {"book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95, "tags": ["a", "b"]},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99, "isbn": "0-553"},
            {"category": "fiction", "price": 22, "nested": [[1, [2, [3, {"deep": true}]]]]}
          ],
          "bicycle": {"color": "red", "price": 399, "é": null, "": 0, "a'b": -1e-3}},
         "numbers": [0, -1, 1.5, 1e300, 12345678901234567890, "10"],
         "empty": {}, "list": []}
        """#
    do {
        return try JSONReader.read(text)
    } catch {
        fatalError("The fuzz document does not parse: \(error)")
    }
}()
