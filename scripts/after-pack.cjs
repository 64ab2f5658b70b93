// electron-builder afterPack hook: flips the Electron fuses of the packed binary, so the shipped
// app cannot be turned into a plain Node runtime or be fed code from outside its signed ASAR.
const path = require('node:path');

/** The fuses, by @electron/fuses option name. Exported for test/repo/packaging.test.ts. */
const fuses = {
  RunAsNode: false,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableCookieEncryption: true,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  GrantFileProtocolExtraPrivileges: false,
};

/** The packed executable electron-builder just wrote, per platform. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas')
    return path.join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${name}.exe`);
  return path.join(appOutDir, packager.executableName);
}

/** The config flipFuses takes, built from the option enum of @electron/fuses. */
function fuseConfig(lib, context) {
  const config = { version: lib.FuseVersion.V1 };
  for (const [name, on] of Object.entries(fuses)) {
    const option = lib.FuseV1Options[name];
    if (option === undefined) throw new Error(`@electron/fuses has no fuse ${name}`);
    config[option] = on;
  }
  // Re-signing ad hoc keeps an unsigned arm64 macOS build launchable after its binary changed.
  if (context && context.electronPlatformName === 'darwin' && context.arch === 3)
    config.resetAdHocDarwinSignature = true;
  return config;
}

async function afterPack(context) {
  const lib = await import('@electron/fuses');
  await lib.flipFuses(executablePath(context), fuseConfig(lib, context));
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.fuses = fuses;
module.exports.fuseConfig = fuseConfig;
module.exports.executablePath = executablePath;
