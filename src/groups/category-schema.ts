import { Errors } from '../core/errors/arcgis-error';
import { requiredJsonParam } from '../core/http/param-values';

/** ArcGIS's bounds on a category schema: four levels below the root categories, 200 categories in all. */
export const CATEGORY_BOUNDS = { depth: 5, categories: 200, titleChars: 100 } as const;

interface Category {
  title: string;
  description?: string;
  categories?: Category[];
}

const invalid = (detail: string) => Errors.badRequest("Invalid value for parameter 'categorySchema'.", [detail]);

/**
 * `categorySchema` as assignCategorySchema takes it, `{"categorySchema":[{title, description?, categories?}]}` (a bare
 * array is accepted too), checked and rebuilt so that only the known keys are stored. Titles are path segments of an
 * item's categories (`/Categories/Basemaps`), so they may not contain `/`.
 */
export function parseCategorySchema(raw: string): Category[] {
  const json = requiredJsonParam<unknown>('categorySchema', raw, 'any');
  const list = Array.isArray(json) ? json : (json as { categorySchema?: unknown } | null)?.categorySchema;
  if (!Array.isArray(list)) throw invalid('Expected {"categorySchema": [...]}.');
  let count = 0;
  const walk = (nodes: unknown[], depth: number, at: string): Category[] => {
    if (depth > CATEGORY_BOUNDS.depth) throw invalid(`Categories nest at most ${CATEGORY_BOUNDS.depth} levels deep (at ${at}).`);
    return nodes.map((n, i) => {
      const where = `${at}[${i}]`;
      if (!n || typeof n !== 'object' || Array.isArray(n)) throw invalid(`${where} is not an object.`);
      const { title, description, categories } = n as Record<string, unknown>;
      if (typeof title !== 'string' || !title.trim()) throw invalid(`${where} has no title.`);
      if (title.length > CATEGORY_BOUNDS.titleChars || title.includes('/'))
        throw invalid(`${where}: a title has at most ${CATEGORY_BOUNDS.titleChars} characters and no '/'.`);
      if (description !== undefined && typeof description !== 'string') throw invalid(`${where}: description is not text.`);
      if (categories !== undefined && !Array.isArray(categories)) throw invalid(`${where}: categories is not a list.`);
      if (++count > CATEGORY_BOUNDS.categories) throw invalid(`A schema has at most ${CATEGORY_BOUNDS.categories} categories.`);
      return {
        title: title.trim(),
        ...(description !== undefined ? { description } : {}),
        ...(categories ? { categories: walk(categories, depth + 1, `${where}.categories`) } : {}),
      };
    });
  };
  return walk(list, 1, 'categorySchema');
}
