import { describe, expect, it } from "@jest/globals";
import { EXPORTER_TAG } from "../../functions/cluster/index.ts";
import { EXPORTER_PINNED_TAG } from "../harness/node/images.ts";

describe("the real node's images", () => {
  it("hold the exporter under the tag render-cluster pins", () => {
    expect(EXPORTER_PINNED_TAG).toBe(EXPORTER_TAG);
  });
});
