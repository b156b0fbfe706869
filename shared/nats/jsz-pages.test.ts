import { describe, expect, it } from "@jest/globals";
import { forEachJszPage, JSZ_PAGE, type JszPage } from "./jsz-pages.ts";

async function pagesRead(total: number | undefined): Promise<JszPage[]> {
  const asked: JszPage[] = [];
  await forEachJszPage(async (page) => {
    asked.push(page);
    return total;
  });
  return asked;
}

describe("forEachJszPage", () => {
  it("reads one page when every account fits in it", async () => {
    expect(await pagesRead(JSZ_PAGE)).toEqual([{ offset: 0, limit: JSZ_PAGE }]);
    expect(await pagesRead(0)).toEqual([{ offset: 0, limit: JSZ_PAGE }]);
  });

  it("pages on until the total is covered", async () => {
    expect(await pagesRead(2 * JSZ_PAGE + 1)).toEqual([
      { offset: 0, limit: JSZ_PAGE },
      { offset: JSZ_PAGE, limit: JSZ_PAGE },
      { offset: 2 * JSZ_PAGE, limit: JSZ_PAGE },
    ]);
  });

  it("stops when an answer does not say its total (or the page failed)", async () => {
    expect(await pagesRead(undefined)).toEqual([{ offset: 0, limit: JSZ_PAGE }]);
  });
});
