// pbf v4 is ESM-only; Jest loads its UMD build instead (the same code). arcgis-rest-js's CommonJS build calls
// `new (require('pbf').default)(…)`, as Node's require() of an ES module gives it, so the constructor is both.
const Pbf = require('../../node_modules/pbf/dist/pbf.js');
module.exports = Pbf;
module.exports.default = Pbf;
