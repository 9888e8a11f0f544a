/** The module's options as given to forRoot / forRootAsync (SluiceAdminModuleOptions). */
export const ADMIN_OPTIONS = Symbol('SLUICE_ADMIN_OPTIONS');

/** Where the admin is served, without slashes: 'sluice' → the API at /sluice/api. */
export const ADMIN_PATH = Symbol('SLUICE_ADMIN_PATH');

/** The built panel's files (PanelFiles), or null when the panel is not served. */
export const PANEL_FILES = Symbol('SLUICE_ADMIN_PANEL_FILES');
