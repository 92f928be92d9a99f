import { layerReports } from './import-graph';

/** Prints each service's circles of imports (files, then folders with the imports that tie them); exit 1 when any. */
const root = process.argv[2] ?? process.cwd();
let total = 0;
for (const r of layerReports(root)) {
  const n = r.fileCircles.length + r.unitCircles.length;
  total += n;
  console.log(`${r.srcDir}: ${r.fileCircles.length} circles between files, ${r.unitCircles.length} between folders`);
  for (const c of r.fileCircles) console.log(`  files: ${c.join(' <-> ')}`);
  for (const c of r.unitCircles) {
    console.log(`  folders: ${c.units.join(' <-> ')}`);
    for (const t of c.ties) console.log(`    ${t}`);
  }
}
process.exitCode = total > 0 ? 1 : 0;
