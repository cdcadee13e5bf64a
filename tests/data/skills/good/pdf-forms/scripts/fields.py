import sys


def main(path):
    print('fields of', path)


if __name__ == '__main__':
    main(sys.argv[1])
