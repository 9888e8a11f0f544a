import { Controller, VERSION_NEUTRAL } from '@nestjs/common';

/** The metadata @nestjs/swagger's ApiExcludeController sets, written without importing it. */
const SWAGGER_EXCLUDE = 'swagger/apiExcludeController';

/** A controller class, as class decorators receive it. */
export type ControllerClass = abstract new (...args: never[]) => unknown;

const controllers = new Set<ControllerClass>();

/**
 * A controller of the admin API: version-neutral, so an app's URI or header versioning (with a
 * default version) leaves /<path>/api where the panel looks for it; and left out of the app's own
 * OpenAPI document, which setupSluiceAdminDocs describes apart (docs/operations.md).
 */
export function AdminController(path: string): ClassDecorator {
  const nest = Controller({ path, version: VERSION_NEUTRAL });
  return (target) => {
    controllers.add(target as unknown as ControllerClass);
    Reflect.defineMetadata(SWAGGER_EXCLUDE, [true], target);
    nest(target);
  };
}

/** Shows (true) or hides (false) the admin's routes to @nestjs/swagger's createDocument. */
export function describeAdminRoutes(described: boolean): void {
  for (const controller of controllers) {
    Reflect.defineMetadata(SWAGGER_EXCLUDE, [!described], controller);
  }
}

/** Every admin controller, for the admin's own OpenAPI document. */
export function adminControllers(): ReadonlySet<ControllerClass> {
  return controllers;
}
