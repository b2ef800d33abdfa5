import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Options } from 'openapi-backend';

/**
 * openapi-backend checks documents against the OpenAPI 3.0 meta-schema and validates with draft-07
 * Ajv; with a 3.1 document that silently yields zero routes and ignores 2020-12 keywords. This
 * subclass validates with Ajv 2020-12 (all errors, formats) and leaves spec linting to Spectral.
 */
export class OpenAPI31Backend extends OpenAPIBackend<Document> {
  constructor(options: Options<Document>) {
    super({
      ...options,
      customizeAjv: (_draft07, ajvOptions) => {
        const ajv = new Ajv2020({ ...ajvOptions, strict: false, allErrors: true });
        addFormats.default(ajv);
        return ajv;
      },
    });
  }

  override validateDefinition(): Document {
    return this.definition;
  }
}
