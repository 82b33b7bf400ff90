import { calculatorTool } from "./calculator";
import { currentTimeTool } from "./current-time";
import { ToolRegistry } from "./registry";

/** The tools every agent run gets. Later issues add file, shell, browser and memory tools here. */
export function defaultToolRegistry(): ToolRegistry {
  return new ToolRegistry().register(currentTimeTool).register(calculatorTool);
}
