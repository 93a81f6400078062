import ChronicleSchema
import ChronicleTodoModel

/// The declared models that tests which must hold for any model run on: the notebook (which
/// Chronicle's sources never mention) and the todo app's, by name, for test arguments.
public enum DeclaredTestModels {
    /// The models' names: `notebook`, `todo`.
    public static let names = ["notebook", "todo"]

    /// The model named `name` (one of ``names``).
    public static func model(named name: String) -> ChronicleModel {
        name == "notebook" ? NotebookModel.model : TodoAppModel.model
    }
}
