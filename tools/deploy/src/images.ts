/**
 * The container images the project ships, one per app plus `migrate` (the migrations and registry
 * seed Job): what each runs and which files of the build it needs. The Dockerfile's final stage and
 * the runtime-layout test both lay an image out from this table (assemble-runtime), so what is
 * tested is what ships.
 */
export interface ImageSpec {
  /** The compiled script `main.js` of the image runs, relative to the repository root. */
  entry: string;
  /** Other compiled scripts the entry starts as processes (their `require` closures are copied too). */
  alsoRuns?: string[];
  /** Files outside dist/ it reads at run time (its default configuration, migrations), relative to the root. */
  files: string[];
  /** Its health port: the variable that sets it and the app's default (checked against the app's env schema). */
  health?: { portVar: string; port: number };
}

export const APP_NAMES = ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service'] as const;
export type AppName = (typeof APP_NAMES)[number];
export type ImageName = AppName | 'migrate';

const app = (name: AppName, portVar: string, port: number, files: string[] = []): ImageSpec => ({
  entry: `dist/apps/${name}/src/main.js`,
  files,
  health: { portVar, port },
});

export const IMAGES: Readonly<Record<ImageName, ImageSpec>> = {
  // The browser pages it serves (the order explorer and the partner console), built by scripts/build.sh.
  gateway: app('gateway', 'GATEWAY_PORT', 8080, ['dist/web']),
  'quote-engine': app('quote-engine', 'QUOTE_ENGINE_PORT', 8082, ['config/quoting.json']),
  'price-oracle': app('price-oracle', 'PRICE_ORACLE_PORT', 8083, ['config/prices.json']),
  'gasless-relayer': app('gasless-relayer', 'GASLESS_RELAYER_PORT', 8084),
  'partner-service': app('partner-service', 'PARTNER_SERVICE_PORT', 8085, ['config/partners.json']),
  migrate: {
    entry: 'dist/tools/deploy/src/migrate-job.js',
    alsoRuns: ['dist/tools/migrate/src/main.js', 'dist/apps/quote-engine/src/seed.js'],
    files: [
      'config/registry.json',
      'prisma/quote-engine/migrations',
      'prisma/partner-service/migrations',
      'prisma/gasless-relayer/migrations',
    ],
  },
};

export const IMAGE_NAMES = Object.keys(IMAGES) as ImageName[];

export function imageSpec(name: string): ImageSpec {
  if (!(name in IMAGES)) throw new Error(`no image ${name}; one of: ${IMAGE_NAMES.join(', ')}`);
  return IMAGES[name as ImageName];
}
